/** Static bearer tokens. */
import { StaticTokenVerifier } from '../../../../src/mcp/auth/static-tokens';

describe('static tokens', () => {
  test('two principals with the same token are refused at startup, naming both', () => {
    expect(() => StaticTokenVerifier.parse('alice:tok-shared-1234,bob:tok-shared-1234', 'MCP_AUTH_TOKENS')).toThrow(
      'MCP_AUTH_TOKENS: the same bearer token is given to two principals (alice and bob)',
    );
  });
  test('distinct tokens still map to their principals', async () => {
    const v = StaticTokenVerifier.parse('alice:tok-a,bob:tok-b', 'x');
    expect((await v.verifyAccessToken('tok-b')).clientId).toBe('bob');
  });
});

test('static tokens: the same token for two principals is refused; twice for one is fine', () => {
  expect(() => StaticTokenVerifier.parse('alice:tok-0123456789\nbob:tok-0123456789', 'tokens.txt')).toThrow(
    'tokens.txt: the same bearer token is given to two principals (alice and bob)',
  );
  expect(() => StaticTokenVerifier.parse('alice:tok-0123456789,alice:tok-0123456789', 'env')).not.toThrow();
});
