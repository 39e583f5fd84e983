/**
 * A real authorization server for the OAuth tests: `oidc-provider` in its own process on
 * 127.0.0.1 (test/support/oidc-provider.mjs), started and stopped by the test. Keys are made
 * here so a test can rotate them (restart on the same port with another set) or forge tokens
 * with keys the provider never published.
 */
import { createHmac, createPublicKey, generateKeyPairSync, type JsonWebKey, KeyObject, sign } from 'node:crypto';
import path from 'node:path';
import { freePort } from './ports';
import { ChildHandle, spawnProcess } from './processes';

export interface SigningKey {
  kid: string;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
  privateKey: KeyObject;
}

export function makeKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    kid,
    privateKey,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
  };
}

export interface IdentityProvider {
  issuer: string;
  port: number;
  /** Stops it and starts it again on the same port with these keys (the first one signs). */
  restart(keys: SigningKey[]): Promise<void>;
  stop(): Promise<void>;
  /** A client credentials token for `resource` (JWT, unless the client is `svc-opaque`). */
  clientCredentials(client: string, resource: string, scope?: string): Promise<string>;
}

const SCRIPT = path.join(__dirname, 'oidc-provider.mjs');
const running = new Set<ChildHandle>();

export async function startIdentityProvider(keys: SigningKey[], opts: { port?: number; issuer?: string } = {}): Promise<IdentityProvider> {
  const port = opts.port ?? (await freePort());
  let child: ChildHandle | undefined;
  let issuer = '';
  const start = async (set: SigningKey[]) => {
    const config = { port, keys: set.map((k) => k.privateJwk), ...(opts.issuer ? { issuer: opts.issuer } : {}) };
    const proc = spawnProcess(process.execPath, ['--no-warnings', SCRIPT], {
      env: { OIDC_TEST_CONFIG: JSON.stringify(config) },
      name: 'oidc-provider',
    });
    running.add(proc);
    void proc.exited.then(() => running.delete(proc));
    [, issuer] = await proc.waitFor(/listening (\S+)/, 20_000);
    child = proc;
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    await proc?.stop('SIGTERM', 5_000);
  };
  await start(keys);
  return {
    get issuer() {
      return issuer;
    },
    port,
    restart: async (set) => {
      await stop();
      await start(set);
    },
    stop,
    clientCredentials: async (client, resource, scope = 'mcp tools:admin') => {
      const secret = `${client}-secret-0123456789`;
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }).toString(),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token from ${issuer}: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
  };
}

/** Stops every provider still running (afterAll). */
export async function stopIdentityProviders(): Promise<void> {
  await Promise.all([...running].map((proc) => proc.stop('SIGTERM', 5_000)));
}

const b64 = (v: object | Buffer) => (Buffer.isBuffer(v) ? v : Buffer.from(JSON.stringify(v))).toString('base64url');

/** A JWT signed RS256 by `key` (a key the provider may never have published). */
export function forgeRs256(key: SigningKey, claims: object): string {
  const input = `${b64({ alg: 'RS256', typ: 'at+jwt', kid: key.kid })}.${b64(claims)}`;
  return `${input}.${b64(sign('sha256', Buffer.from(input), key.privateKey))}`;
}

/** The classic algorithm confusion: HS256 "signed" with the issuer's PUBLIC key as the secret. */
export function forgeHs256WithPublicKey(key: SigningKey, claims: object): string {
  const input = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })}.${b64(claims)}`;
  const publicPem = createPublicKey({ key: key.publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  return `${input}.${b64(createHmac('sha256', publicPem).update(input).digest())}`;
}

/** An unsigned token (`alg: none`). */
export function forgeNone(claims: object): string {
  return `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`;
}

/** The serve environment of the OAuth tests: this issuer, scope `mcp` required, short skew and cooldown, introspection as client `rs`. */
export function oauthEnv(issuer: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    MCP_OAUTH_ISSUER: issuer,
    MCP_OAUTH_REQUIRED_SCOPES: 'mcp',
    MCP_OAUTH_CLOCK_SKEW_SECONDS: '1',
    MCP_OAUTH_JWKS_COOLDOWN_MS: '300',
    MCP_OAUTH_INTROSPECTION_CLIENT_ID: 'rs',
    MCP_OAUTH_INTROSPECTION_CLIENT_SECRET: 'rs-secret-0123456789',
    MCP_OWNER_KEY: 'an-owner-key-for-oauth-tests',
    ...extra,
  };
}
