import { acceptedContent, inputRequired, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { logger, taskLog, whyResponseDoesNotFit } from '../../tasks';
import type { PreTaskInput, ToolDefinition } from '../../tool-definition';
import { type InputRequest, MAX_ARGUMENT_BYTES } from '../../contract';
import {
  InvalidInputResponseError,
  InvalidToolArgumentsError,
  MissingScopeError,
  TaskStoreUnavailableError,
  toProtocolError,
  UnknownToolError,
} from './errors';
import { principalOf } from './negotiation';
import type { CallSite } from '../revision';
import type { McpContext } from '../context';
import type { TaskHandles } from '../task-handles/task-handles';
import { isSecretName, masked } from './masking';
import { valueNestsDeeperThan } from '../http/body';
import { runHeld } from './held-run';

const CallParamsSchema = z.looseObject({ name: z.unknown().optional(), arguments: z.unknown().optional(), task: z.unknown().optional() });

/**
 * tools/call: validate, negotiate, then either start the tool's workflow as a task
 * (CreateTaskResult after Temporal acknowledged the start), answer a task handle (callers
 * without Tasks), or run it and wait. `site`: this request's revision (how a call opts in to a
 * task, and what it answers) and transport (2025 input requests go out on the call's stream).
 */
export async function handleToolsCall(params: unknown, ctx: ServerContext, site: CallSite, mcp: McpContext, handles: TaskHandles) {
  const parsed = CallParamsSchema.safeParse(params ?? {});
  if (!parsed.success || parsed.data.name === undefined)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params: tools/call needs params.name, the name of a tool');
  const { name, arguments: rawArgs, task: taskParam } = parsed.data;
  const { revision } = site;
  const optedIn = revision.requestsTask({ task: taskParam }, ctx);
  // task tools exist only for callers without Tasks (a 2025 request cannot say: always)
  const taskTool = !revision.callerSpeaksTasks(ctx) || !optedIn ? handles.taskTool(name) : undefined;
  const tool = taskTool ?? (typeof name === 'string' ? mcp.registry.get(name) : undefined);
  if (!tool) throw new UnknownToolError(name);
  // the SDK's scope challenge answers 403 first where it can: this is the backstop
  const missing = mcp.toolScopes.missing(tool, ctx.http?.authInfo);
  if (missing.length) throw new MissingScopeError(tool.name, missing);
  const args = await parseArguments(tool, rawArgs ?? {});
  if (taskTool) return complete(await handles.serve(taskTool, args, ctx, site).catch(rethrow));
  const asTask = optedIn && tool.taskMode !== 'never';
  const handle = !optedIn && handles.servesHandle(tool);
  const refused = optedIn && tool.taskMode === 'never' ? revision.refuseTaskOf(tool) : undefined;
  if (refused) throw refused;
  if (tool.taskMode === 'required' && !asTask && !handle) throw revision.taskRequired(tool);

  if (tool.local) return tool.local(args, ctx);
  if (tool.beforeTask) {
    const answer = preTaskAnswer(tool.beforeTask, ctx);
    // the SDK's MRTR helper, typed by the SDK's own form-schema shape (ext-tasks types it as JSON)
    if (!answer)
      return inputRequired({
        inputRequests: { [tool.beforeTask.key]: inputRequired.elicit(preTaskRequest(tool.beforeTask).params as never) },
      });
    args[tool.beforeTask.argument] = answer;
    checkArgumentSize(tool, args);
  }

  const input = {
    tool: tool.name,
    workflowType: tool.workflowType!, // resolved by the registry (a local tool returned above)
    arguments: args,
    owner: principalOf(ctx),
    summary: summarize(tool.name, args),
    taskQueue: tool.taskQueue,
    executionTimeout: tool.executionTimeout,
  };
  try {
    if (asTask) {
      const task = await mcp.store.start(input);
      taskLog(task).info({ event: 'task.created' }, 'task created');
      return revision.createTaskResult(task, mcp.config.pollIntervalMs);
    }
    if (handle) return complete(await handles.callWithHandle(input, ctx, site, tool));
    // a held synchronous call watches its run: it holds a place until the run ends
    const result = await mcp.limits.holding(input.owner, () => runHeld(mcp, input, ctx), 'held_call');
    return { ...result, resultType: 'complete' as const };
  } catch (err) {
    return rethrow(err, tool.name);
  }
}

function rethrow(err: unknown, tool?: string): never {
  const protocolError = toProtocolError(err);
  if (protocolError instanceof TaskStoreUnavailableError)
    logger.error({ event: 'tools.call.failed', tool, err: (err as Error).message }, 'tools/call failed');
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
  if (valueNestsDeeperThan(raw, MAX_ARGUMENT_DEPTH))
    throw new InvalidToolArgumentsError(tool.name, [`arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`]);
  checkArgumentSize(tool, raw);
  const parsed = await tool.inputSchema['~standard'].validate(raw);
  if (parsed.issues) {
    throw new InvalidToolArgumentsError(
      tool.name,
      parsed.issues.map((i) => `${pathOf(i.path) || '(arguments)'}: ${i.message}`),
    );
  }
  return parsed.value as Record<string, unknown>;
}

function checkArgumentSize(tool: ToolDefinition, args: unknown): void {
  const bytes = Buffer.byteLength(JSON.stringify(args) ?? '');
  if (bytes > MAX_ARGUMENT_BYTES)
    throw new InvalidToolArgumentsError(tool.name, [
      `arguments are ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of a Temporal payload`,
    ]);
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
    const text = typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : (JSON.stringify(v) ?? '');
    return `${k}=${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
  });
  const line = `${tool}(${parts.join(', ')})`;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
