/** OAuth settings, claims → principal, discovery URLs, per-tool scopes: the pure parts. */
import { ConfigError, parseServerConfig } from '../../src/mcp/config';
import { clientOf, principalFor, scopesOf } from '../../src/mcp/http/claims';
import { metadataUrls } from '../../src/mcp/http/discovery';
import { isPrmPath } from '../../src/mcp/http/protected-resource-metadata';
import { ToolScopes } from '../../src/mcp/http/tool-scopes';
import { StaticTokenVerifier } from '../../src/mcp/http/auth';
import { parseToolsFile, ToolsFileError } from '../../src/mcp/workflow-tools';

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
    const env = { MCP_OAUTH_ISSUER: 'https://a.example.com', MCP_OAUTH_AUDIENCES: 'api://mcp, https://mcp.example.com/mcp', MCP_OAUTH_REQUIRED_SCOPES: 'mcp tools' };
    expect(parseServerConfig({}, env).oauth).toMatchObject({ audiences: ['api://mcp', 'https://mcp.example.com/mcp'], requiredScopes: ['mcp', 'tools'] });
    expect(parseServerConfig({ oauth: { issuer: 'https://b.example.com', requiredScopes: ['x'] } }, env).oauth).toMatchObject({ issuer: 'https://b.example.com', requiredScopes: ['x'] });
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
    expect(parseServerConfig({ oauth: { issuer: 'http://127.0.0.1:8080/realms/dev' } }, {}).oauth?.issuer).toBe('http://127.0.0.1:8080/realms/dev');
    expect(parseServerConfig({ oauth: { issuer: 'http://localhost:8080' } }, {}).oauth?.issuer).toBe('http://localhost:8080');
  });
});

describe('claims', () => {
  test('scopes from scope (space-separated) or scp (Okta: array; Entra: string)', () => {
    expect(scopesOf({ iss: 'i', scope: 'a b  a' })).toEqual(['a', 'b']);
    expect(scopesOf({ iss: 'i', scp: ['a', 'b', 3] })).toEqual(['a', 'b']);
    expect(scopesOf({ iss: 'i', scp: 'Tasks.Run User.Read' })).toEqual(['Tasks.Run', 'User.Read']);
    expect(scopesOf({ iss: 'i' })).toEqual([]);
  });

  test('the client from client_id, azp, cid (Okta) or appid (Entra v1)', () => {
    expect(clientOf({ iss: 'i', client_id: 'c1', azp: 'c2' })).toBe('c1');
    expect(clientOf({ iss: 'i', azp: 'c2' })).toBe('c2');
    expect(clientOf({ iss: 'i', cid: 'c3' })).toBe('c3');
    expect(clientOf({ iss: 'i', appid: 'c4' })).toBe('c4');
    expect(clientOf({ iss: 'i' })).toBeUndefined();
  });

  test('the principal: the user scoped by issuer, and the client unless shared; unambiguous', () => {
    expect(principalFor('https://a', 'alice', 'app', 'user-and-client')).toBe('oauth:["https://a","alice","app"]');
    expect(principalFor('https://a', 'alice', 'app', 'user')).toBe('oauth:["https://a","alice"]');
    expect(principalFor('https://a', 'alice', 'app', 'user')).not.toBe(principalFor('https://b', 'alice', 'app', 'user'));
    // no way to make one (issuer, user) look like another by the characters in them
    expect(principalFor('https://a","x', 'y', undefined, 'user')).not.toBe(principalFor('https://a', 'x","y', undefined, 'user'));
  });
});

test('metadata discovery URLs: RFC 8414 inserted, then OpenID appended and inserted', () => {
  expect(metadataUrls('https://kc.example.com/realms/acme')).toEqual([
    'https://kc.example.com/.well-known/oauth-authorization-server/realms/acme',
    'https://kc.example.com/realms/acme/.well-known/openid-configuration',
    'https://kc.example.com/.well-known/openid-configuration/realms/acme',
  ]);
  expect(metadataUrls('https://tenant.auth0.com/')).toEqual(['https://tenant.auth0.com/.well-known/oauth-authorization-server', 'https://tenant.auth0.com/.well-known/openid-configuration']);
});

test('protected resource metadata paths: root, the MCP path, and the public resource path', () => {
  const resource = new URL('https://example.com/tools/mcp');
  expect(isPrmPath('/.well-known/oauth-protected-resource', '/mcp', resource)).toBe(true);
  expect(isPrmPath('/.well-known/oauth-protected-resource/mcp', '/mcp', resource)).toBe(true);
  expect(isPrmPath('/.well-known/oauth-protected-resource/tools/mcp/', '/mcp', resource)).toBe(true);
  expect(isPrmPath('/.well-known/oauth-protected-resource/other', '/mcp', resource)).toBe(false);
});

describe('per-tool scopes', () => {
  const scopes = new ToolScopes(['mcp'], new Set(['mcp', 'tools:admin', 'reports']));
  const auth = (s: string[]) => ({ token: 't', clientId: 'c', scopes: s });
  const tool = { name: 'admin_echo', scopes: ['tools:admin'] };

  test('a tool without scopes is open to every authenticated caller; without authentication nothing is checked', () => {
    expect(scopes.mayCall({ name: 'x' }, auth([]))).toBe(true);
    expect(scopes.mayCall(tool, undefined)).toBe(true);
    expect(scopes.challenge({ name: 'x' })).toBeUndefined();
  });

  test('the challenge asks for the required scopes, those held here, and the tool\'s; nothing when they are held', () => {
    const challenge = scopes.challenge(tool)!;
    expect(challenge({ request: {} as never, authInfo: auth(['mcp', 'reports', 'profile']) })).toEqual({
      scopes: ['mcp', 'reports', 'tools:admin'],
      errorDescription: 'tool admin_echo needs scope tools:admin',
    });
    expect(challenge({ request: {} as never, authInfo: auth(['mcp', 'tools:admin']) })).toBeUndefined();
    expect(challenge({ request: {} as never })).toBeUndefined();
  });

  test('tools files name scopes; a scope that is not a scope token is refused with the tool named', () => {
    const entry = { name: 'a', description: 'd', inputSchema: { type: 'object' }, workflowType: 'W', taskMode: 'optional' };
    expect(parseToolsFile({ tools: [{ ...entry, scopes: ['tools:admin'] }] })[0].scopes).toEqual(['tools:admin']);
    expect(() => parseToolsFile({ tools: [{ ...entry, scopes: ['two words'] }] })).toThrow(ToolsFileError);
    expect(() => parseToolsFile({ tools: [{ ...entry, scopes: ['two words'] }] })).toThrow(/tool "a" \(tools\[0\]\): scopes\.0: an OAuth scope token/);
  });
});

test('static tokens: the same token for two principals is refused; twice for one is fine', () => {
  expect(() => StaticTokenVerifier.parse('alice:tok-0123456789\nbob:tok-0123456789', 'tokens.txt')).toThrow('tokens.txt: the same bearer token is given to two principals (alice and bob)');
  expect(() => StaticTokenVerifier.parse('alice:tok-0123456789,alice:tok-0123456789', 'env')).not.toThrow();
});
