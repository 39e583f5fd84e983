import { parseServerConfig } from '../../src/mcp/config';
import { parseDurationMs } from '../../src/mcp/duration';

test('the grammar: milliseconds, or a number and a unit', () => {
  expect([500, '500', '500ms', '30s', '1.5h', '10 minutes', '2 days', '1w'].map((v) => parseDurationMs(v))).toEqual([500, 500, 500, 30_000, 5_400_000, 600_000, 172_800_000, 604_800_000]);
  expect(['soon', '-1s', '1 fortnight', ''].map((v) => parseDurationMs(v))).toEqual([undefined, undefined, undefined, undefined]);
});

test('every duration setting reads the one grammar (a bare number is milliseconds)', () => {
  expect(parseServerConfig({ handleWaitMs: '20s', ttlMs: 3_600_000 }, { MCP_QUOTA_LAG_MS: '1.5s', MCP_OAUTH_ISSUER: 'https://id.example', MCP_OAUTH_JWKS_COOLDOWN_MS: '1m' }))
    .toMatchObject({ handleWaitMs: 20_000, ttlMs: 3_600_000, quotaLagMs: 1_500, oauth: { jwksCooldownMs: 60_000 } });
  expect(() => parseServerConfig({ ttlMs: 'soon' }, {})).toThrow(/ttlMs \(--ttl-ms or MCP_TASK_TTL_MS\): "soon" is not a duration/);
  expect(() => parseServerConfig({ handleWaitMs: '11m' }, {})).toThrow(/handleWaitMs .*600000/);
});
