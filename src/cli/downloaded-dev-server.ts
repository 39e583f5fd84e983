import dns from 'node:dns/promises';
import { SEARCH_ATTRIBUTES } from '../contract';
import type { DevServer, DevServerOptions } from './dev-server-options';

/**
 * The last resort when no Temporal CLI is installed: the Temporal SDK downloads the CLI and runs
 * its dev server. Only tried where the internet answers (the SDK's download site) and where
 * @temporalio/testing is installed (a clone: it is a dev dependency, not one of a library user).
 */
export async function startDownloadedDevServer(opts: DevServerOptions): Promise<DevServer | undefined> {
  const testing = loadTesting();
  if (!testing || !(await canResolve('temporal.download'))) return undefined;
  const env = await testing.TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download' },
      dbFilename: opts.dbFile,
      ip: opts.host,
      port: opts.port,
      ui: true,
      uiPort: opts.uiPort,
      namespace: opts.namespace,
      searchAttributes: SEARCH_ATTRIBUTES,
    },
  });
  return {
    address: `${opts.host}:${opts.port}`,
    uiUrl: `http://${opts.host}:${opts.uiPort}`,
    pid: -1,
    stop: () => env.teardown(),
  };
}

async function canResolve(host: string): Promise<boolean> {
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000).unref());
  return Promise.race([
    dns.lookup(host).then(
      () => true,
      () => false,
    ),
    timeout,
  ]);
}

function loadTesting(): typeof import('@temporalio/testing') | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional: loaded only when installed
    return require('@temporalio/testing') as typeof import('@temporalio/testing');
  } catch {
    return undefined;
  }
}
