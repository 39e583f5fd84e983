/** OAuth settings: off unless named, defaults, environment and flags, refusals (read through parseServerConfig). */
import { ConfigError, parseServerConfig } from '../../../../src/mcp/config';

describe('settings', () => {
  test('off unless something names it; defaults when the issuer is given', () => {
    expect(parseServerConfig({}, {}).oauth).toBeUndefined();
    expect(parseServerConfig({ oauth: { issuer: undefined } }, {}).oauth).toBeUndefined();
    expect(parseServerConfig({}, { MCP_OAUTH_ISSUER: 'https://id.example.com/realms/acme' }).oauth).toEqual({
      issuer: 'https://id.example.com/realms/acme',
      requiredScopes: [],
      scopesSupported: [],
      clockSkewSeconds: 30,
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'],
      httpTimeoutMs: 5000,
      jwksCooldownMs: 30000,
      jwksMaxAgeMs: 600000,
      introspection: 'auto',
      introspectionCacheMs: 30000,
      introspectionCacheSize: 10000,
      taskBinding: 'user-and-client',
    });
  });

  test('environment lists are comma- or space-separated; flags and library options win', () => {
    const env = {
      MCP_OAUTH_ISSUER: 'https://a.example.com',
      MCP_OAUTH_AUDIENCES: 'api://mcp, https://mcp.example.com/mcp',
      MCP_OAUTH_REQUIRED_SCOPES: 'mcp tools',
    };
    expect(parseServerConfig({}, env).oauth).toMatchObject({
      audiences: ['api://mcp', 'https://mcp.example.com/mcp'],
      requiredScopes: ['mcp', 'tools'],
    });
    expect(parseServerConfig({ oauth: { issuer: 'https://b.example.com', requiredScopes: ['x'] } }, env).oauth).toMatchObject({
      issuer: 'https://b.example.com',
      requiredScopes: ['x'],
    });
  });

  test.each([
    [{ issuer: 'http://id.example.com' }, /oauth\.issuer \(--oauth-issuer or MCP_OAUTH_ISSUER\): must be https/],
    [{ issuer: 'not a url' }, /oauth\.issuer/],
    [{ issuer: 'https://a.example.com', algorithms: ['HS256'] }, /oauth\.algorithms\.0.*asymmetric only/],
    [{ issuer: 'https://a.example.com', algorithms: 'none' }, /asymmetric only/],
    [{ issuer: 'https://a.example.com', requiredScopes: ['a"b'] }, /oauth\.requiredScopes\.0.*scope token/],
    [{ issuer: 'https://a.example.com', resource: 'http://mcp.example.com/mcp' }, /oauth\.resource.*must be https/],
    [{ issuer: 'https://a.example.com', clockSkewSeconds: '-1' }, /clockSkewSeconds/],
    [{ issuer: 'https://a.example.com', taskBinding: 'anyone' }, /taskBinding/],
    [{ issuer: 'https://a.example.com', introspectionClientSecret: 's' }, /introspectionClientId.*needs introspectionClientId/],
    [{ issuer: 'https://a.example.com', unknownSetting: 1 }, /oauth/],
    [{ requiredScopes: ['mcp'] }, /oauth\.issuer/],
  ])('%j is refused clearly', (oauth, message) => {
    expect(() => parseServerConfig({ oauth }, {})).toThrow(ConfigError);
    expect(() => parseServerConfig({ oauth }, {})).toThrow(message);
  });

  test('http is accepted on loopback only (local identity providers, tests)', () => {
    expect(parseServerConfig({ oauth: { issuer: 'http://127.0.0.1:8080/realms/dev' } }, {}).oauth?.issuer).toBe(
      'http://127.0.0.1:8080/realms/dev',
    );
    expect(parseServerConfig({ oauth: { issuer: 'http://localhost:8080' } }, {}).oauth?.issuer).toBe('http://localhost:8080');
  });
});
