'use strict';
/** The benches' one table printer and their statistics. All times are in milliseconds. */

/** The p-th percentile (0..100) of sorted values, nearest-rank method. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

function mean(values) {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

function median(values) {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** n, min, mean, p50, p95, p99, max of a list of latencies. */
function summarize(values) {
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
function ratio(ours, raw) {
  return Number.isFinite(ours) && Number.isFinite(raw) && raw > 0 ? ours / raw : NaN;
}

/** A target on a ratio (ours / other): at most `bound` (latencies, time, memory) or at least (rates). */
const atMost = (bound) => ({ label: `≤ ${bound}×`, met: (r) => r <= bound });
const atLeast = (bound) => ({ label: `≥ ${bound}×`, met: (r) => r >= bound });

/** [label, 'met' | 'not met'] of a target on a value ('' and '' without a target, '–' without a value). */
function judge(target, value) {
  if (!target) return ['', ''];
  if (typeof value === 'number' && !Number.isFinite(value)) return [target.label, '–'];
  return [target.label, target.met(value) ? 'met' : 'not met'];
}

function fmt(value, digits = 1) {
  if (value === undefined || value === null || Number.isNaN(value)) return '–';
  if (typeof value !== 'number') return String(value);
  return value.toFixed(digits);
}

/** A markdown table from a header row and rows of cells (numbers formatted with fmt). */
function markdownTable(header, rows) {
  const cell = (v) => {
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

module.exports = { percentile, mean, median, summarize, ratio, atMost, atLeast, judge, fmt, markdownTable };
