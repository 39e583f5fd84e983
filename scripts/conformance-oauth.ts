#!/usr/bin/env node
// The conformance suite's server scenarios (scripts/conformance.ts) with OAuth on: `dev` trusts a
// real oidc-provider (test/support/oidc-provider.mjs) and requires scope `mcp`; the suite has no
// way to send a token, so it talks to a relay that adds a client credentials token from that
// provider to each request, as a logged-in client would (Host and every other header pass as
// they are). Also checks that the server itself refuses the same request without the token.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { ROOT } from '../test/support/paths';
import { freePort } from '../test/support/ports';
import { Cleanup, spawnProcess } from '../test/support/processes';
import { install, report, runAll, startDev } from './conformance';

if (process.argv[2] === '--relay') relay(process.argv[3], process.argv[4], process.argv[5]);
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });

async function main(): Promise<void> {
  install();
  const cleanup = new Cleanup();
  try {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = { ...privateKey.export({ format: 'jwk' }), kid: 'conf', alg: 'RS256', use: 'sig' };
    const idpPort = await freePort();
    const idp = cleanup.track(
      'identity provider',
      spawnProcess(process.execPath, ['--no-warnings', path.join(ROOT, 'test', 'support', 'oidc-provider.mjs')], {
        env: { OIDC_TEST_CONFIG: JSON.stringify({ port: idpPort, keys: [key] }) },
      }),
    );
    const [, issuer] = await idp.waitFor(/listening (\S+)/);
    const dev = await startDev(cleanup, {
      MCP_OAUTH_ISSUER: issuer,
      MCP_OAUTH_REQUIRED_SCOPES: 'mcp',
      MCP_OWNER_KEY: 'conformance-owner-key-0123',
    });
    const relayPort = await freePort();
    const relayProc = cleanup.track('relay', spawnProcess(process.execPath, [__filename, '--relay', String(relayPort), dev.url, issuer]));
    await relayProc.waitFor(/relay on (\S+)/);
    const url = `http://127.0.0.1:${relayPort}/mcp`;
    const bare = await fetch(dev.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    if (bare.status !== 401 || !/resource_metadata=/.test(bare.headers.get('www-authenticate') ?? ''))
      throw new Error(`the server does not require a token (HTTP ${bare.status})`);
    console.log(`dev ${dev.url} requires OAuth (401 with resource_metadata); the suite runs through ${url}`);
    report(runAll(url));
  } finally {
    await cleanup.run();
  }
}

/** The relay: every request to the server, with a fresh-enough token for the URL the suite uses. */
function relay(port: string, target: string, issuer: string): void {
  const resource = `http://127.0.0.1:${port}/mcp`;
  let token: string | undefined;
  let until = 0;
  const tokenNow = async () => {
    if (Date.now() < until) return token;
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('svc:svc-secret-0123456789').toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'mcp tools:admin' }).toString(),
    });
    token = ((await res.json()) as { access_token: string }).access_token;
    until = Date.now() + 300_000;
    return token;
  };
  const upstream = new URL(target);
  http
    .createServer(async (req, res) => {
      const headers = { ...req.headers, authorization: `Bearer ${await tokenNow()}` };
      const out = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    })
    .listen(Number(port), '127.0.0.1', () => console.log(`relay on ${resource}`));
}
