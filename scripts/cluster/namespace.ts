/**
 * The namespace and the project's search attributes, registered the way docker-compose.yml's
 * temporal-setup (and an operator) does it: the Temporal CLI's `operator namespace create` and
 * `operator search-attribute create`. Then a workflow start that sets every attribute, retried
 * until the frontend and the history hosts know the new namespace (their caches refresh on
 * their own schedule): when it succeeds, the cluster takes tasks.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type * as Contract from '../../dist/contract';
import { ROOT } from '../../test/support/paths';
import { sleep } from '../../test/support/wait';

const CLI = path.join(ROOT, '.temporal', 'bin', 'temporal');
const READY_TIMEOUT_MS = 120_000;

type Keyword = (typeof Contract.SEARCH_ATTRIBUTES)[number];

export async function registerNamespace(
  address: string,
  namespace: string,
  searchAttributes: Keyword[],
  log: (m: string) => void,
): Promise<void> {
  const cli = (...args: string[]) => spawnSync(CLI, [...args, '--address', address], { encoding: 'utf8' });
  await retry(`namespace ${namespace} created on ${address}`, () => {
    if (cli('operator', 'namespace', 'describe', '--namespace', namespace).status === 0) return true;
    const out = cli('operator', 'namespace', 'create', '--namespace', namespace, '--retention', '24h');
    return out.status === 0 || out.stderr;
  });
  for (const { name } of searchAttributes) {
    await retry(`search attribute ${name} registered`, () => {
      const out = cli('operator', 'search-attribute', 'create', '--namespace', namespace, '--name', name, '--type', 'Keyword');
      return out.status === 0 || /already exists/i.test(out.stderr) || out.stderr;
    });
  }
  log(`namespace ${namespace} with search attributes ${searchAttributes.map((a) => a.name).join(', ')}`);
  await startsWorkflows(address, namespace, searchAttributes);
}

/** A workflow start with every search attribute set, terminated at once. */
async function startsWorkflows(address: string, namespace: string, searchAttributes: Keyword[]): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace });
    await retry('a workflow start on the new namespace', async () => {
      try {
        const handle = await client.workflow.start('clusterProbe', {
          taskQueue: 'cluster-probe',
          workflowId: `cluster-probe-${Date.now()}`,
          typedSearchAttributes: searchAttributes.map((key) => ({ key, value: 'probe' })),
        });
        await handle.terminate('cluster readiness probe');
        return true;
      } catch (err) {
        return (err as Error).message;
      }
    });
  } finally {
    await connection.close();
  }
}

/** Calls `attempt` until it returns true; any other value is the last failure, reported at the deadline. */
async function retry(what: string, attempt: () => Promise<true | string> | true | string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const result = await attempt();
    if (result === true) return;
    if (Date.now() > deadline) throw new Error(`no ${what} after ${READY_TIMEOUT_MS} ms: ${result}`);
    await sleep(500);
  }
}
