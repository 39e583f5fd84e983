/** The one duration grammar (src/mcp/duration.ts), and every duration setting reading it. */
import { parseServerConfig } from '../../../src/mcp/config';
import { DurationMsSchema, parseDurationMs } from '../../../src/mcp/duration';

test('the grammar: milliseconds, or a number and a unit', () => {
  expect([500, '500', '500ms', '30s', '1.5h', '10 minutes', '2 days', '1w'].map((v) => parseDurationMs(v))).toEqual([
    500, 500, 500, 30_000, 5_400_000, 600_000, 172_800_000, 604_800_000,
  ]);
  expect(['soon', '-1s', '1 fortnight', ''].map((v) => parseDurationMs(v))).toEqual([undefined, undefined, undefined, undefined]);
});

test('every duration setting reads the one grammar (a bare number is milliseconds)', () => {
  expect(
    parseServerConfig(
      { handleWaitMs: '20s', ttlMs: 3_600_000 },
      { MCP_QUOTA_LAG_MS: '1.5s', MCP_OAUTH_ISSUER: 'https://id.example', MCP_OAUTH_JWKS_COOLDOWN_MS: '1m' },
    ),
  ).toMatchObject({ handleWaitMs: 20_000, ttlMs: 3_600_000, quotaLagMs: 1_500, oauth: { jwksCooldownMs: 60_000 } });
  expect(() => parseServerConfig({ ttlMs: 'soon' }, {})).toThrow(/ttlMs \(--ttl-ms or MCP_TASK_TTL_MS\): "soon" is not a duration/);
  expect(() => parseServerConfig({ handleWaitMs: '11m' }, {})).toThrow(/handleWaitMs .*600000/);
});

describe('the one duration grammar', () => {
  test.each<[string | number, number]>([
    [250, 250],
    ['250', 250],
    ['500ms', 500],
    ['500 milliseconds', 500],
    ['1.5s', 1500],
    ['30 secs', 30_000],
    ['2m', 120_000],
    ['10 minutes', 600_000],
    ['1.5h', 5_400_000],
    ['2 HOURS', 7_200_000],
    ['1d', 86_400_000],
    ['2 days', 172_800_000],
    ['1w', 604_800_000],
    ['  45s  ', 45_000],
    ['0.0004s', 0], // rounded to whole milliseconds
  ])('%p is %i ms', (value, ms) => expect(parseDurationMs(value)).toBe(ms));

  test.each(['', 'soon', '-1s', '1 parsec', '1y', '1h30m', 's', '1.s', '1e3'])('%p is not a duration', (value) =>
    expect(parseDurationMs(value)).toBeUndefined(),
  );

  test('as a setting: to milliseconds, or an issue with examples', () => {
    expect(DurationMsSchema.parse('2m')).toBe(120_000);
    expect(DurationMsSchema.parse(1500)).toBe(1500);
    const bad = DurationMsSchema.safeParse('later');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toBe('"later" is not a duration (e.g. 30s, 2m, 500ms, 2 hours)');
  });
});
