import * as z from 'zod';

/**
 * The one duration grammar (worker flags, tools files): a number of milliseconds, or a number
 * and a unit: ms, s, m, h, d, w, or their words ("500ms", "30s", "1.5h", "10 minutes", "2 days").
 */
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)?$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a duration in that grammar; undefined when it is not one. */
export function parseDurationMs(value: string | number): number | undefined {
  const m = DURATION.exec(String(value).trim());
  if (!m) return undefined;
  const unit = (m[2] ?? 'ms').toLowerCase();
  const key = unit.startsWith('ms') || unit.startsWith('milli') ? 'ms' : unit[0];
  return Math.round(Number(m[1]) * UNIT_MS[key]);
}

/** A duration setting (zod): the grammar above, to milliseconds. */
export const DurationMsSchema = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms = parseDurationMs(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (e.g. 30s, 2m, 500ms, 2 hours)` });
    return z.NEVER;
  }
  return ms;
});

/** A duration setting in that grammar, checked by `bounds` once in milliseconds (a bare number is milliseconds). */
export function durationMs<T extends z.ZodType<number, number>>(bounds: T) {
  return DurationMsSchema.pipe(bounds);
}
