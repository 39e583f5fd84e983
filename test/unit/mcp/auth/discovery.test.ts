/** Authorization server metadata discovery. */
import { metadataUrls } from '../../../../src/mcp/auth/discovery';

test('metadata discovery URLs: RFC 8414 inserted, then OpenID appended and inserted', () => {
  expect(metadataUrls('https://kc.example.com/realms/acme')).toEqual([
    'https://kc.example.com/.well-known/oauth-authorization-server/realms/acme',
    'https://kc.example.com/realms/acme/.well-known/openid-configuration',
    'https://kc.example.com/.well-known/openid-configuration/realms/acme',
  ]);
  expect(metadataUrls('https://tenant.auth0.com/')).toEqual([
    'https://tenant.auth0.com/.well-known/oauth-authorization-server',
    'https://tenant.auth0.com/.well-known/openid-configuration',
  ]);
});
