/**
 * The MCP TypeScript SDK client's OAuth side, driven headless: an OAuthClientProvider that
 * registers dynamically, keeps its tokens in memory, and "redirects the user agent" by
 * following the authorization server's redirects with fetch (a cookie jar, the test
 * provider's automatic login as `login_hint` and consent) until the redirect back to the
 * client, whose code `finishAuth` then exchanges.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';

const REDIRECT = 'http://127.0.0.1:1/callback'; // never reached: the redirect back is read, not followed

export class HeadlessOAuthProvider implements OAuthClientProvider {
  private info?: any;
  private saved?: any;
  private verifier = '';
  /** The query of the last redirect back to the client (code, state, iss). */
  callback?: URLSearchParams;
  authorizations = 0;

  /** `user` logs in; `shareClientWith` reuses another provider's registration (one client, two users). */
  constructor(
    public user: string,
    shareClientWith?: HeadlessOAuthProvider,
  ) {
    if (shareClientWith) this.info = shareClientWith.info;
  }

  get redirectUrl() {
    return REDIRECT;
  }

  get clientMetadata() {
    return {
      client_name: 'headless test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    } as any;
  }

  clientInformation() {
    return this.info;
  }

  saveClientInformation(info: any) {
    this.info = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: any) {
    this.saved = tokens;
  }

  get accessToken(): string {
    return this.saved?.access_token;
  }

  saveCodeVerifier(v: string) {
    this.verifier = v;
  }

  codeVerifier() {
    return this.verifier;
  }

  // kept with the code verifier, so the SDK can check the callback leg goes to the same authorization server (SEP-2352)
  private discovery?: any;

  saveDiscoveryState(state: any) {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizations++;
    url.searchParams.set('login_hint', this.user);
    const jar = new Map<string, string>();
    let next = url.href;
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
      }
      const location = res.headers.get('location');
      await res.text();
      if (!location) throw new Error(`authorization stopped at ${next}: HTTP ${res.status}`);
      next = new URL(location, next).href;
      if (next.startsWith(REDIRECT)) {
        this.callback = new URL(next).searchParams;
        if (this.callback.get('error'))
          throw new Error(`authorization refused: ${this.callback.get('error')} ${this.callback.get('error_description')}`);
        return;
      }
    }
    throw new Error('too many redirects');
  }
}
