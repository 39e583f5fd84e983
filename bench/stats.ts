/** The benches' one table printer and their statistics. All times are in milliseconds. */

/** The p-th percentile (0..100) of sorted values, nearest-rank method. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export interface Summary {
  n: number;
  min: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** n, min, mean, p50, p95, p99, max of a list of latencies. */
export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] ?? NaN,
    mean: mean(sorted),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** ours / raw, or NaN when either is missing. */
export function ratio(ours: number | undefined, raw: number | undefined): number {
  return ours !== undefined && raw !== undefined && Number.isFinite(ours) && Number.isFinite(raw) && raw > 0 ? ours / raw : NaN;
}

export interface Target {
  label: string;
  met(value: number): boolean;
}

/** A target on a ratio (ours / other): at most `bound` (latencies, time, memory) or at least (rates). */
export const atMost = (bound: number): Target => ({ label: `≤ ${bound}×`, met: (r) => r <= bound });
export const atLeast = (bound: number): Target => ({ label: `≥ ${bound}×`, met: (r) => r >= bound });

/** [label, 'met' | 'not met'] of a target on a value ('' and '' without a target, '–' without a value). */
export function judge(target: Target | undefined, value: unknown): [string, string] {
  if (!target) return ['', ''];
  if (typeof value === 'number' && !Number.isFinite(value)) return [target.label, '–'];
  return [target.label, target.met(value as number) ? 'met' : 'not met'];
}

export function fmt(value: unknown, digits = 1): string {
  if (value === undefined || value === null || Number.isNaN(value)) return '–';
  if (typeof value !== 'number') return String(value);
  return value.toFixed(digits);
}

/** A markdown table from a header row and rows of cells (numbers formatted with fmt). */
export function markdownTable(header: string[], rows: unknown[][]): string {
  const cell = (v: unknown) => {
    if (typeof v !== 'number') return fmt(v);
    if (Number.isInteger(v)) return String(v);
    return fmt(v, Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  };
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  return lines.join('\n');
}
