/**
 * The plugin's tracing: Temporal's OpenTelemetry plugin (interceptors for workflows and
 * activities, a sink for the workflow's spans), loaded only when asked for, and the attempt on
 * each activity's span, so a retry (after a worker died, say) is told from the first try.
 */
import { trace } from '@opentelemetry/api';
import type { OpenTelemetryPlugin, OpenTelemetryPluginOptions } from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

export const ACTIVITY_ATTEMPT_ATTRIBUTE = 'temporalActivityAttempt';

type OpenTelemetryModule = typeof import('@temporalio/interceptors-opentelemetry');

export function tracingPlugin(options: OpenTelemetryPluginOptions): OpenTelemetryPlugin {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy: the OpenTelemetry SDK stays out of untraced workers
  const otel = require('@temporalio/interceptors-opentelemetry') as OpenTelemetryModule;
  return new otel.OpenTelemetryPlugin(options);
}

/** Runs inside Temporal's activity interceptor (its span is the active one). */
export const attemptOnSpan: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute: (input, next) => {
      trace.getActiveSpan()?.setAttribute(ACTIVITY_ATTEMPT_ATTRIBUTE, ctx.info.attempt);
      return next(input);
    },
  },
});
