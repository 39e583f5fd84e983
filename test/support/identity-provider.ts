/**
 * A real authorization server for the OAuth tests: `oidc-provider` in its own process on
 * 127.0.0.1 (test/support/oidc-provider.mjs), started and stopped by the test. Keys are made
 * here so a test can rotate them (restart on the same port with another set) or forge tokens
 * with keys the provider never published.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createHmac, createPublicKey, generateKeyPairSync, type JsonWebKey, KeyObject, sign } from 'node:crypto';
import path from 'node:path';
import { freePort } from './ports';

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
const running = new Set<ChildProcess>();

export async function startIdentityProvider(keys: SigningKey[], opts: { port?: number; issuer?: string } = {}): Promise<IdentityProvider> {
  const port = opts.port ?? (await freePort());
  let child: ChildProcess | undefined;
  let issuer = '';
  const start = async (set: SigningKey[]) => {
    const config = { port, keys: set.map((k) => k.privateJwk), ...(opts.issuer ? { issuer: opts.issuer } : {}) };
    const proc = spawn(process.execPath, ['--no-warnings', SCRIPT], { env: { ...process.env, OIDC_TEST_CONFIG: JSON.stringify(config) }, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(proc);
    proc.once('exit', () => running.delete(proc));
    issuer = await new Promise<string>((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        const m = out.match(/listening (\S+)/);
        if (m) resolve(m[1]);
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}):\n${out}`)));
      setTimeout(() => reject(new Error(`oidc-provider did not start:\n${out}`)), 20_000).unref();
    });
    child = proc;
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
    await exited;
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
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` },
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
  await Promise.all([...running].map((proc) => new Promise((resolve) => {
    proc.once('exit', resolve);
    proc.kill('SIGTERM');
  })));
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
