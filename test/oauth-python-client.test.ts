/**
 * The Python MCP SDK (2.3.0, from PyPI into the git-ignored .venv-clients/) completes the MCP
 * authorization flow from the 401 on its own, against a real oidc-provider, and calls a tool.
 */
import { runPythonClient } from './support/python-client';
import path from 'node:path';
import { makeKey, oauthEnv, startIdentityProvider, stopIdentityProviders, type IdentityProvider } from './support/identity-provider';
import { startServe, startWorker } from './support/mcp';
import { ROOT, stopAllAfter } from './support/processes';
import { startTestTemporal, type TestTemporal } from './support/temporal';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureClientsVenv } = require('../scripts/clients-venv.js') as { ensureClientsVenv: (o?: { log?: (m: string) => void }) => string };

let temporal: TestTemporal;
let idp: IdentityProvider;
let url: string;
let python: string;

beforeAll(async () => {
  python = ensureClientsVenv({ log: (m) => console.log(m) });
  temporal = await startTestTemporal();
  idp = await startIdentityProvider([makeKey('k1')]);
  await startWorker(temporal.address);
  ({ url } = await startServe(temporal.address, [], oauthEnv(idp.issuer)));
}, 600_000);
afterAll(() => stopIdentityProviders());
stopAllAfter(() => temporal);

function pythonClient(user: string): Promise<any> {
  return runPythonClient(python, path.join(ROOT, 'test', 'clients', 'oauth_client.py'), [url, user]);
}

test('401 → metadata → registration → login → token → tools/list and tools/call', async () => {
  const outcome = await pythonClient('grace');
  expect(outcome.tools).toContain('wait_and_echo');
  expect(outcome.text).toContain('from python for grace');
  expect(outcome.claims).toMatchObject({ sub: 'grace', iss: idp.issuer, aud: url, scope: 'mcp' });
});
