import { acceptedContent, inputRequired, ProtocolError, ProtocolErrorCode, type ServerContext, type Transport } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { logger, taskLog, type TemporalTaskStore, whyResponseDoesNotFit } from '../tasks';
import { PreTaskInput, ToolDefinition, workflowTypeOf } from '../tool-definition';
import type { ToolRegistry } from './tool-registry';
import { type InputRequest, MAX_ARGUMENT_BYTES } from '../contract';
import { InvalidInputResponseError, InvalidToolArgumentsError, MissingScopeError, TaskStoreUnavailableError, toProtocolError, UnknownToolError } from './errors';
import { principalOf } from './negotiation';
import type { ProtocolRevision } from './revision';
import type { TaskTools } from './task-handles/task-handles';
import type { ToolScopes } from './auth/tool-scopes';
import type { WatchLimits } from './watch-limits';
import { isSecretName, masked } from './masking';
import { valueNestsDeeperThan } from './http/body';

export interface ToolsCallDeps {
  registry: ToolRegistry;
  store: TemporalTaskStore;
  pollIntervalMs: number;
  /** This request's protocol revision: how a call opts in to a task, and what it answers. */
  revision: ProtocolRevision;
  /** Handles and companion tools for callers that do not opt in to Tasks. */
  taskTools: TaskTools;
  /** Held synchronous calls count against the watch limits. */
  limits: WatchLimits;
  /** This request's transport (2025 input requests go out on the call's stream). */
  transport?: Transport;
  /** Per-tool OAuth scopes; the SDK's challenge answers 403 first, this is the backstop. */
  toolScopes?: ToolScopes;
}


const CallParamsSchema = z.looseObject({ name: z.unknown().optional(), arguments: z.unknown().optional(), task: z.unknown().optional() });

/**
 * tools/call: validate, negotiate, then either start the tool's workflow as a task
 * (CreateTaskResult after Temporal acknowledged the start) or run it and wait.
 */
export async function handleToolsCall(params: unknown, ctx: ServerContext, deps: ToolsCallDeps) {
  const parsed = CallParamsSchema.safeParse(params ?? {});
  if (!parsed.success || parsed.data.name === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params: tools/call needs params.name, the name of a tool');
  const { name, arguments: rawArgs, task: legacyOptIn } = parsed.data;
  const { revision } = deps;
  const optedIn = revision.requestsTask({ task: legacyOptIn }, ctx);
  // companion tools exist only for callers without Tasks (a 2025 request cannot say: always)
  const companion = !revision.callerSpeaksTasks(ctx) || !optedIn ? deps.taskTools.companion(name) : undefined;
  const tool = companion ?? (typeof name === 'string' ? deps.registry.get(name) : undefined);
  if (!tool) throw new UnknownToolError(name);
  const missing = deps.toolScopes?.missing(tool, ctx.http?.authInfo) ?? [];
  if (missing.length) throw new MissingScopeError(tool.name, missing);
  const args = await parseArguments(tool, rawArgs ?? {});
  const site = { revision, transport: deps.transport };
  if (companion) return complete(await deps.taskTools.serve(companion, args, ctx, site).catch(rethrow));
  const asTask = optedIn && tool.taskMode !== 'never';
  const handle = !optedIn && deps.taskTools.servesHandle(tool);
  const refused = optedIn && tool.taskMode === 'never' ? revision.refuseTaskOf(tool) : undefined;
  if (refused) throw refused;
  if (tool.taskMode === 'required' && !asTask && !handle) throw revision.taskRequired(tool);

  if (tool.local) return tool.local(args, ctx);
  if (tool.beforeTask) {
    const answer = preTaskAnswer(tool.beforeTask, ctx);
    // the SDK's MRTR helper, typed by the SDK's own form-schema shape (ext-tasks types it as JSON)
    if (!answer) return inputRequired({ inputRequests: { [tool.beforeTask.key]: inputRequired.elicit(preTaskRequest(tool.beforeTask).params as never) } });
    args[tool.beforeTask.argument] = answer;
    checkArgumentSize(tool, args);
  }

  const input = {
    tool: tool.name, workflowType: workflowTypeOf(tool), arguments: args, owner: principalOf(ctx), summary: summarize(tool.name, args),
    taskQueue: tool.taskQueue, executionTimeout: tool.executionTimeout,
  };
  try {
    if (asTask) {
      const task = await deps.store.start(input);
      taskLog(task).info({ event: 'task.created' }, 'task created');
      return revision.createTaskResult(task, deps.pollIntervalMs);
    }
    if (handle) return complete(await deps.taskTools.callWithHandle(input, ctx, site, tool));
    // a held synchronous call watches its run: it holds a place until the run ends
    const result = await deps.limits.holding(input.owner, () => deps.store.run(input, ctx.mcpReq.signal));
    return { ...result, resultType: 'complete' as const };
  } catch (err) {
    return rethrow(err, tool.name);
  }
}

function rethrow(err: unknown, tool?: string): never {
  const protocolError = toProtocolError(err);
  if (protocolError instanceof TaskStoreUnavailableError) logger.error({ event: 'tools.call.failed', tool, err: (err as Error).message }, 'tools/call failed');
  throw protocolError;
}

/** A CallToolResult gets the 2026 `resultType`; an input_required round already has its own. */
function complete(result: unknown): unknown {
  const r = result as { resultType?: string };
  return r.resultType ? r : { ...r, resultType: 'complete' as const };
}

/** Deepest nesting of tool arguments (HTTP bodies are already bounded before parsing; stdio is not). */
const MAX_ARGUMENT_DEPTH = 64;

async function parseArguments(tool: ToolDefinition, raw: unknown): Promise<Record<string, unknown>> {
  // before anything recursive (JSON.stringify, the schema) walks them
  if (valueNestsDeeperThan(raw, MAX_ARGUMENT_DEPTH)) throw new InvalidToolArgumentsError(tool.name, [`arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`]);
  checkArgumentSize(tool, raw);
  const parsed = await tool.inputSchema['~standard'].validate(raw);
  if (parsed.issues) {
    throw new InvalidToolArgumentsError(tool.name, parsed.issues.map((i) => `${pathOf(i.path) || '(arguments)'}: ${i.message}`));
  }
  return parsed.value as Record<string, unknown>;
}

function checkArgumentSize(tool: ToolDefinition, args: unknown): void {
  const bytes = Buffer.byteLength(JSON.stringify(args) ?? '');
  if (bytes > MAX_ARGUMENT_BYTES) throw new InvalidToolArgumentsError(tool.name, [`arguments are ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of a Temporal payload`]);
}

function preTaskRequest({ message, requestedSchema }: PreTaskInput): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } };
}

/**
 * The accepted content of the pre-task input round, checked like any tasks/update answer;
 * undefined when the round has not been answered (or was declined): ask again.
 */
function preTaskAnswer(round: PreTaskInput, ctx: ServerContext): Record<string, unknown> | undefined {
  const response = ctx.mcpReq.inputResponses?.[round.key];
  if (response === undefined) return undefined;
  const why = whyResponseDoesNotFit(preTaskRequest(round), response);
  if (why) throw new InvalidInputResponseError(`inputResponses.${round.key}: ${why}`);
  return acceptedContent(ctx.mcpReq.inputResponses, round.key);
}

function pathOf(path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  return (path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
}

/**
 * A short, safe rendering of the call for the Temporal UI (stored unencrypted): truncated
 * values; secret-looking names and credential-looking values shown as *** at any depth.
 */
export function summarize(tool: string, args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([k, raw]) => {
    if (isSecretName(k)) return `${k}=***`;
    const v = masked(raw);
    const text = typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : JSON.stringify(v) ?? '';
    return `${k}=${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
  });
  const line = `${tool}(${parts.join(', ')})`;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
