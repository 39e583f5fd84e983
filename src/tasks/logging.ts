import pino from 'pino';
import { traceIdOf } from './trace-context';

/**
 * Structured JSON logs on stderr (stdout may carry MCP over stdio). Every line about a task
 * carries taskId, tool and the workflow's runId, and trace_id when the task was traced.
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const logger = pino({ level: 'info', base: { service: 'mcp-temporal-tasks' } }, pino.destination(2));

export function setLogLevel(level: LogLevel): void {
  logger.level = level;
}

export function taskLog(task: { taskId: string; tool: string; runId?: string; traceparent?: string }) {
  const traceId = traceIdOf(task.traceparent);
  return logger.child({
    taskId: task.taskId,
    tool: task.tool,
    ...(task.runId ? { runId: task.runId } : {}),
    ...(traceId ? { trace_id: traceId } : {}),
  });
}
