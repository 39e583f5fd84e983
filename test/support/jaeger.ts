/**
 * A Jaeger v2 of a test's own (scripts/jaeger.ts builds it): in-memory storage, its OTLP/HTTP
 * receiver and query API on free ports of 127.0.0.1, nothing else listening. Traces are read
 * back through the query API's JSON (/api/traces/{traceId}).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, HOST } from './ports';
import { type ChildHandle, spawnProcess } from './processes';
import { waitFor } from './wait';

export interface Jaeger {
  proc: ChildHandle;
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the processes that send it spans. */
  otlpEndpoint: string;
  queryUrl: string;
  /** The trace's spans as the query API answers them; [] while it holds none. */
  trace(traceId: string): Promise<JaegerSpan[]>;
  stop(): Promise<void>;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }>;
  tags: Array<{ key: string; value: unknown }>;
  processID: string;
  /** The span's resource (service.name, process.pid…), resolved from the trace's processes. */
  process: { serviceName: string; tags: Array<{ key: string; value: unknown }> };
}

export async function startJaeger(binary: string): Promise<Jaeger> {
  const [otlp, http, grpc] = [await freePort(), await freePort(), await freePort()];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-jaeger-'));
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, configYaml(otlp, http, grpc));
  const proc = spawnProcess(binary, ['--config', config], { name: 'jaeger' });
  const queryUrl = `http://${HOST}:${http}`;
  const stop = async () => {
    await proc.stop('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () =>
        fetch(`${queryUrl}/api/services`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      30_000,
      200,
      'Jaeger not up',
    );
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}:\n${proc.output().slice(-3000)}`);
  }
  return { proc, otlpEndpoint: `http://${HOST}:${otlp}`, queryUrl, trace: (id) => readTrace(queryUrl, id), stop };
}

async function readTrace(queryUrl: string, traceId: string): Promise<JaegerSpan[]> {
  const res = await fetch(`${queryUrl}/api/traces/${traceId}`);
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`Jaeger /api/traces/${traceId}: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { data: Array<{ spans: JaegerSpan[]; processes: Record<string, JaegerSpan['process']> }> };
  return (body.data ?? []).flatMap((t) => t.spans.map((s) => ({ ...s, process: t.processes[s.processID] })));
}

/** Jaeger's all-in-one configuration cut down to what a test needs, every port its own. */
function configYaml(otlp: number, http: number, grpc: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: ${HOST}:${http}
    grpc:
      endpoint: ${HOST}:${grpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: ${HOST}:${otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}
