import * as z from 'zod';
import { AuthServerUnavailableError } from './errors';
import { fetchJson } from './http-fetch';

/** The parts of RFC 8414 / OpenID provider metadata this resource server uses. */
const AuthServerMetadataSchema = z.looseObject({
  issuer: z.string(),
  jwks_uri: z.string().optional(),
  introspection_endpoint: z.string().optional(),
  scopes_supported: z.array(z.string()).optional(),
});
export type AuthServerMetadata = z.infer<typeof AuthServerMetadataSchema>;

/**
 * Where an issuer's metadata may be: RFC 8414 (well-known inserted before the issuer's path),
 * OpenID Connect Discovery (appended), and the inserted OpenID form some servers use.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const at = (p: string) => new URL(p, url.origin).href;
  return [
    ...new Set([
      at(`/.well-known/oauth-authorization-server${path}`),
      at(`${path}/.well-known/openid-configuration`),
      at(`/.well-known/openid-configuration${path}`),
    ]),
  ];
}

/**
 * The issuer's metadata, discovered once and kept; a failure is retried no sooner than
 * `retryMs` later (requests in between fail fast with the same error instead of piling up).
 */
export class AuthServerDiscovery {
  private found?: AuthServerMetadata;
  private pending?: Promise<AuthServerMetadata>;
  private failed?: { at: number; error: Error };

  constructor(
    private readonly issuer: string,
    private readonly timeoutMs: number,
    private readonly retryMs = 5_000,
  ) {}

  async metadata(): Promise<AuthServerMetadata> {
    if (this.found) return this.found;
    if (this.failed && Date.now() - this.failed.at < this.retryMs) throw this.failed.error;
    this.pending ??= this.discover().then(
      (m) => {
        this.found = m;
        this.pending = undefined;
        return m;
      },
      (err: Error) => {
        this.failed = { at: Date.now(), error: err };
        this.pending = undefined;
        throw err;
      },
    );
    return this.pending;
  }

  private async discover(): Promise<AuthServerMetadata> {
    const tried: string[] = [];
    for (const url of metadataUrls(this.issuer)) {
      const { status, body } = await fetchJson(url, this.timeoutMs).catch((err: Error) => ({ status: 0, body: err.message }));
      if (status !== 200) {
        tried.push(`${url}: ${status || body}`);
        continue;
      }
      const parsed = AuthServerMetadataSchema.safeParse(body);
      if (!parsed.success) {
        tried.push(`${url}: not authorization server metadata`);
        continue;
      }
      // RFC 8414 §3.3 / OIDC Discovery §4.3: a document for another issuer is refused (mix-up attacks)
      if (parsed.data.issuer !== this.issuer) {
        tried.push(`${url}: names issuer ${parsed.data.issuer}, not ${this.issuer}`);
        continue;
      }
      return parsed.data;
    }
    throw new AuthServerUnavailableError(`authorization server metadata of ${this.issuer} not found: ${tried.join('; ')}`);
  }
}
