/** Claims: scopes, the client and the principal. */
import { clientOf, principalFor, scopesOf } from '../../../../src/mcp/auth/claims';

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
