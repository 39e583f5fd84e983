import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { loadDataConverter } from './data-converter';

/**
 * Temporal connection settings the way every Temporal tool reads them (@temporalio/envconfig):
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE and
 * temporal.toml profiles. `address` (e.g. the embedded dev server) overrides them.
 */
export function temporalSettings(override: { address?: string; namespace?: string } = {}) {
  const config = loadClientConnectConfig();
  const connectionOptions = { ...config.connectionOptions };
  if (override.address) connectionOptions.address = override.address;
  connectionOptions.address ??= 'localhost:7233';
  return { connectionOptions, namespace: override.namespace ?? config.namespace ?? 'default' };
}

export type TemporalSettings = ReturnType<typeof temporalSettings>;

/** `workflowInterceptors`: e.g. tracing's, so a workflow start carries the caller's trace. */
export async function connectClient(settings: TemporalSettings, workflowInterceptors: WorkflowClientInterceptor[] = []): Promise<Client> {
  // lazy: the server starts and reports errors per request when Temporal is down, and recovers by itself
  const connection = Connection.lazy({ ...settings.connectionOptions, tls: settings.connectionOptions.tls as never });
  const interceptors = workflowInterceptors.length ? { interceptors: { workflow: workflowInterceptors } } : {};
  return new Client({ connection, namespace: settings.namespace, dataConverter: loadDataConverter(), ...interceptors });
}

/** The namespace's retention in ms (the longest a closed task can stay readable), if known. */
export async function namespaceRetentionMs(client: Client): Promise<number | undefined> {
  const ns = await client.workflowService.describeNamespace({ namespace: client.options.namespace });
  const ttl = ns.config?.workflowExecutionRetentionTtl;
  if (!ttl) return undefined;
  return Number(ttl.seconds ?? 0) * 1000 + Math.floor((ttl.nanos ?? 0) / 1e6);
}

/** Whether the custom search attributes are registered in the namespace. */
export async function hasSearchAttributes(client: Client, names: string[]): Promise<boolean> {
  const res = await client.connection.operatorService.listSearchAttributes({ namespace: client.options.namespace });
  return names.every((n) => n in (res.customAttributes ?? {}));
}
