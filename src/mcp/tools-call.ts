import { acceptedContent, inputRequired, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { CreateTaskResultV2 } from '@modelcontextprotocol/ext-tasks/core/v2' with { 'resolution-mode': 'import' };
import * as z from 'zod';
import type { TaskSnapshot } from '../tasks/task-snapshot';
import { TemporalTaskStore, ToolProtocolError } from '../tasks/temporal-task-store';
import { ToolDefinition, ToolRegistry, workflowTypeOf } from '../tools/registry';
import { asProtocolError, InvalidToolArgumentsError, tasksCapabilityRequired, UnknownToolError } from './errors';
import { legacyTask } from './legacy-tasks';
import { declaresTasks, principalOf } from './negotiation';
import { logger, taskLog } from '../logging';

export interface ToolsCallDeps {
  registry: ToolRegistry;
  store: TemporalTaskStore;
  pollIntervalMs: number;
  /** 2025-11-25 requests opt in by a `task` param; 2026-07-28 ones by declaring the extension. */
  era: 'modern' | 'legacy';
}

/** Arguments become a Temporal payload (hard limit 2 MB): refuse larger ones before Temporal is touched. */
export const MAX_ARGUMENT_BYTES = 1_500_000;

const CallParamsSchema = z.looseObject({ name: z.unknown(), arguments: z.unknown().optional(), task: z.unknown().optional() });

/**
 * tools/call: validate, negotiate, then either start the tool's workflow as a task
 * (CreateTaskResult after Temporal acknowledged the start) or run it and wait.
 */
export async function handleToolsCall(params: unknown, ctx: ServerContext, deps: ToolsCallDeps) {
  const { name, arguments: rawArgs, task: legacyOptIn } = CallParamsSchema.parse(params ?? {});
  const tool = typeof name === 'string' ? deps.registry.get(name) : undefined;
  if (!tool) throw new UnknownToolError(name);
  const args = await parseArguments(tool, rawArgs ?? {});
  const legacy = deps.era === 'legacy';
  const optedIn = legacy ? typeof legacyOptIn === 'object' && legacyOptIn !== null : declaresTasks(ctx); // modern: params.task is ignored
  const asTask = optedIn && tool.taskMode !== 'never';
  if (tool.taskMode === 'required' && !asTask) {
    if (legacy) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task (params.task)`);
    throw tasksCapabilityRequired();
  }

  if (tool.local) return tool.local(args, ctx);
  if (tool.beforeTask) {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, tool.beforeTask.key);
    if (!answer) {
      const { key, message, requestedSchema } = tool.beforeTask;
      return inputRequired({ inputRequests: { [key]: inputRequired.elicit({ message, requestedSchema } as never) } });
    }
    args[tool.beforeTask.argument] = answer;
  }

  const input = { tool: tool.name, workflowType: workflowTypeOf(tool), arguments: args, owner: principalOf(ctx), summary: summarize(tool.name, args) };
  try {
    if (asTask) {
      const task = await deps.store.start(input);
      taskLog(task).info({ event: 'task.created' }, 'task created');
      return legacy ? { task: legacyTask(task, deps.pollIntervalMs) } : createTaskResult(task, deps.pollIntervalMs);
    }
    return { ...(await deps.store.run(input)), resultType: 'complete' as const };
  } catch (err) {
    if (err instanceof ToolProtocolError) throw new ProtocolError(err.error.code, err.error.message, err.error.data);
    logger.error({ event: 'tools.call.failed', tool: tool.name, err: (err as Error).message }, 'tools/call failed');
    throw asProtocolError(err);
  }
}

async function parseArguments(tool: ToolDefinition, raw: unknown): Promise<Record<string, unknown>> {
  const bytes = Buffer.byteLength(JSON.stringify(raw) ?? '');
  if (bytes > MAX_ARGUMENT_BYTES) throw new InvalidToolArgumentsError(tool.name, [`arguments are ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of a Temporal payload`]);
  const parsed = await tool.inputSchema['~standard'].validate(raw);
  if (parsed.issues) {
    throw new InvalidToolArgumentsError(tool.name, parsed.issues.map((i) => `${pathOf(i.path) || '(arguments)'}: ${i.message}`));
  }
  return parsed.value as Record<string, unknown>;
}

function pathOf(path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  return (path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
}

function createTaskResult(task: TaskSnapshot, pollIntervalMs: number): CreateTaskResultV2 {
  return {
    resultType: 'task',
    taskId: task.taskId,
    status: 'working',
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs,
  } as CreateTaskResultV2;
}

const SECRET_NAME = /pass|secret|token|key|auth|credential|cookie|session/i;

/**
 * A short, safe rendering of the call for the Temporal UI (stored unencrypted): truncated
 * values, and arguments whose names look secret shown as ***.
 */
export function summarize(tool: string, args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([k, v]) => {
    if (SECRET_NAME.test(k)) return `${k}=***`;
    const text = typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : JSON.stringify(v) ?? '';
    return `${k}=${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
  });
  const line = `${tool}(${parts.join(', ')})`;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
