/**
 * The Python MCP SDK (2.3.0, from PyPI into the git-ignored .venv-clients/) completes the MCP
 * authorization flow from the 401 on its own, against a real oidc-provider, and calls a tool.
 */
import { runPythonClient } from '../support/python-client';
import path from 'node:path';
import { makeKey, oauthEnv, startIdentityProvider, stopIdentityProviders, type IdentityProvider } from '../support/identity-provider';
import { configFromEnv } from '../support/in-process';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureClientsVenv } = require('../../scripts/clients-venv') as { ensureClientsVenv: (o?: { log?: (m: string) => void }) => string };

let idp: IdentityProvider;
let url: string;
let python: string;

const stack = useStack({ noServer: true });
beforeAll(async () => {
  python = ensureClientsVenv({ log: (m) => console.log(m) });
  idp = await startIdentityProvider([makeKey('k1')]);
  ({ url } = await stack.serve({ config: configFromEnv(oauthEnv(idp.issuer)) }));
}, 600_000);
afterAll(() => stopIdentityProviders());

function pythonClient(user: string): Promise<any> {
  return runPythonClient(python, path.join(ROOT, 'test', 'clients', 'oauth_client.py'), [url, user]);
}

test('401 → metadata → registration → login → token → tools/list and tools/call', async () => {
  const outcome = await pythonClient('grace');
  expect(outcome.tools).toContain('wait_and_echo');
  expect(outcome.text).toContain('from python for grace');
  expect(outcome.claims).toMatchObject({ sub: 'grace', iss: idp.issuer, aud: url, scope: 'mcp' });
});
