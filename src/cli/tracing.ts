/**
 * Opt-in tracing for the CLI's processes, configured the standard way (OTEL_* variables): spans
 * go over OTLP/HTTP to a collector. Off, nothing of the OpenTelemetry SDK is loaded (the code
 * that makes spans uses @opentelemetry/api alone, whose tracer does nothing until a provider is
 * registered). Library users register their own provider and give the plugin its processor.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { Resource } from '@opentelemetry/resources';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../mcp/config';

export interface TracingSettings {
  /** Where spans are POSTed (the collector's OTLP/HTTP traces URL). */
  tracesUrl: string;
  /** OTEL_SERVICE_NAME; unset: the command's own name. */
  serviceName?: string;
  sampler: SamplerSettings;
}

export interface SamplerSettings {
  /** Sample by the caller's decision when a traceparent arrives (the parentbased_* samplers). */
  parentBased: boolean;
  /** Share of new traces sampled, 0 to 1. */
  ratio: number;
}

const SAMPLERS: Record<string, (arg: number) => SamplerSettings> = {
  always_on: () => ({ parentBased: false, ratio: 1 }),
  always_off: () => ({ parentBased: false, ratio: 0 }),
  traceidratio: (ratio) => ({ parentBased: false, ratio }),
  parentbased_always_on: () => ({ parentBased: true, ratio: 1 }),
  parentbased_always_off: () => ({ parentBased: true, ratio: 0 }),
  parentbased_traceidratio: (ratio) => ({ parentBased: true, ratio }),
};

/**
 * Tracing is on when OTEL_TRACES_EXPORTER names otlp or an OTLP endpoint is set, and
 * OTEL_SDK_DISABLED is not true. Undefined: off. A value this cannot honour is refused.
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = listOf(env.OTEL_TRACES_EXPORTER);
  const unknown = exporters.filter((e) => e !== 'otlp' && e !== 'none');
  if (unknown.length)
    throw new ConfigError(`OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: only otlp (OTLP over HTTP) or none is supported`);
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (exporters.includes('none') || (!exporters.includes('otlp') && !endpoint)) return undefined;
  checkProtocol(env);
  return {
    tracesUrl: tracesUrlOf(env),
    ...(env.OTEL_SERVICE_NAME ? { serviceName: env.OTEL_SERVICE_NAME } : {}),
    sampler: samplerOf(env),
  };
}

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** The signal-specific endpoint is used as given; the general one gets /v1/traces (the OTLP rule). */
function tracesUrlOf(env: NodeJS.ProcessEnv): string {
  const [url, name] = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? [env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']
    : env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? [`${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`, 'OTEL_EXPORTER_OTLP_ENDPOINT']
      : ['http://localhost:4318/v1/traces', ''];
  if (!/^https?:\/\/[^/]/.test(url)) throw new ConfigError(`${name}=${url}: an http:// or https:// URL is needed (OTLP over HTTP)`);
  return url;
}

function checkProtocol(env: NodeJS.ProcessEnv): void {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = env[name]?.trim();
    if (value && !value.startsWith('http/')) throw new ConfigError(`${name}=${value}: only OTLP over HTTP (http/json) is supported`);
  }
}

function samplerOf(env: NodeJS.ProcessEnv): SamplerSettings {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const make = SAMPLERS[name];
  if (!make) throw new ConfigError(`OTEL_TRACES_SAMPLER=${name}: one of ${Object.keys(SAMPLERS).join(', ')}`);
  const raw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const arg = raw ? Number(raw) : 1;
  if (!Number.isFinite(arg) || arg < 0 || arg > 1) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG=${raw}: a ratio from 0 to 1`);
  return make(arg);
}

/** A process's tracing: what the worker's plugin and the server's Temporal client need, and the flush at exit. */
export interface Tracing {
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Temporal's client interceptor: the workflow start carries the caller's span in the workflow's headers. */
  clientInterceptor(): WorkflowClientInterceptor;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Registers the global tracer provider (W3C trace context, AsyncLocalStorage context) that
 * exports to the settings' collector. The SDK modules are loaded here, only when tracing is on.
 */
export async function startTracing(settings: TracingSettings, defaultServiceName: string): Promise<Tracing> {
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { Resource, envDetectorSync } = await import('@opentelemetry/resources');
  const { ATTR_SERVICE_NAME } = await import('@opentelemetry/semantic-conventions');
  // the pid tells a worker's spans from its replacement's; OTEL_RESOURCE_ATTRIBUTES and
  // OTEL_SERVICE_NAME (envDetectorSync) win over the command's name
  const resource = Resource.default()
    .merge(new Resource({ [ATTR_SERVICE_NAME]: settings.serviceName ?? defaultServiceName, 'process.pid': process.pid }))
    .merge(envDetectorSync.detect());
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }));
  const provider = new NodeTracerProvider({ resource, sampler: await samplerFor(settings.sampler), spanProcessors: [spanProcessor] });
  provider.register();
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry');
  return {
    spanProcessor,
    resource,
    clientInterceptor: () => new OpenTelemetryWorkflowClientInterceptor(),
    shutdown: () => provider.shutdown(),
  };
}

async function samplerFor({ parentBased, ratio }: SamplerSettings): Promise<Sampler> {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace-base');
  const root = ratio >= 1 ? new AlwaysOnSampler() : ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return parentBased ? new ParentBasedSampler({ root }) : root;
}
