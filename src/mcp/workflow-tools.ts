/**
 * Tools whose workflow is not written here: any Temporal workflow (Go, Python, Java, TypeScript
 * elsewhere), started by its workflow TYPE NAME on its own task queue, described by JSON Schema.
 * From code (`defineWorkflowTool`) or from a tools file (`toolsFromFile`, `--tools FILE`).
 */
import fs from 'node:fs';
import { fromJsonSchema } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { durationMs } from './duration';
import { ScopeSchema } from './auth/oauth-config';
import type { JsonSchemaObject, ResultMapping, TaskMode, ToolDefinition } from '../tool-definition';

export interface WorkflowToolOptions {
  name: string;
  title?: string;
  description: string;
  /** JSON Schema (2020-12) of the arguments, an object schema: they are validated before Temporal is touched. */
  inputSchema: JsonSchemaObject;
  /** JSON Schema of the result's structuredContent; a result that does not match fails the task (-32603). */
  outputSchema?: JsonSchemaObject;
  /** The Temporal workflow type, as the worker registered it (e.g. `GreetWorkflow`). */
  workflowType: string;
  /** The task queue its workers poll; default: the server's. */
  taskQueue?: string;
  taskMode: TaskMode;
  /** Temporal's workflow execution timeout of each call (ms, or a duration string such as `"1 hour"`). */
  executionTimeout?: number | string;
  /** How a result that is not a CallToolResult becomes one (default `auto`). */
  result?: ResultMapping;
  /** OAuth scopes a caller needs to see and call the tool (with authentication on). */
  scopes?: string[];
  /** false: identical calls are never attached to one task (ToolDefinition.dedupe). */
  dedupe?: boolean;
}

/** A tool from a workflow type name and JSON Schemas (throws when a schema does not compile). */
export function defineWorkflowTool(options: WorkflowToolOptions): ToolDefinition {
  const parsed = WorkflowToolSchema.safeParse(options);
  if (!parsed.success) throw new ToolsFileError(describeIssues(parsed.error.issues, [options], 'tool'));
  return toDefinition(parsed.data, `tool "${options.name}"`);
}

/** A tools file (JSON) that cannot be used: the message names the tool and the field. */
export class ToolsFileError extends Error {}

/** The tools of a tools file: `{ "tools": [ { name, description, inputSchema, workflowType, taskQueue, taskMode, ... } ] }`. */
export function toolsFromFile(file: string): ToolDefinition[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ToolsFileError(`tools file ${file}: cannot read it: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ToolsFileError(`tools file ${file}: not JSON (only JSON is read): ${(err as Error).message}`);
  }
  return parseToolsFile(data, `tools file ${file}`);
}

/** The same from already-parsed data; `source` prefixes every message. */
export function parseToolsFile(data: unknown, source = 'tools file'): ToolDefinition[] {
  const parsed = ToolsFileSchema.safeParse(data);
  if (!parsed.success) {
    const entries = Array.isArray((data as { tools?: unknown })?.tools) ? (data as { tools: unknown[] }).tools : [];
    throw new ToolsFileError(`${source}: ${describeIssues(parsed.error.issues, entries, 'file')}`);
  }
  const seen = new Set<string>();
  return parsed.data.tools.map((entry, i) => {
    if (seen.has(entry.name)) throw new ToolsFileError(`${source}: tool "${entry.name}" (tools[${i}]): name: the name is used twice`);
    seen.add(entry.name);
    return toDefinition(entry, `${source}: tool "${entry.name}" (tools[${i}])`);
  });
}

/** A JSON Schema of an object, as MCP wants inputSchema/outputSchema to be. */
const JsonSchemaObjectSchema = z
  .looseObject({ type: z.literal('object', { error: 'must be "object" (MCP tool schemas describe an object)' }) })
  .transform((s) => s as JsonSchemaObject);

/** Durations in the settings' grammar (config.ts), as milliseconds Temporal takes. */
const DurationSchema = durationMs(z.number().int().positive());

const WorkflowToolSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, '1 to 128 of A-Z a-z 0-9 _ - .'),
  title: z.string().min(1).optional(),
  description: z.string().min(1),
  inputSchema: JsonSchemaObjectSchema,
  outputSchema: JsonSchemaObjectSchema.optional(),
  workflowType: z.string().min(1),
  taskQueue: z.string().min(1).optional(),
  taskMode: z.enum(['never', 'optional', 'required']),
  executionTimeout: DurationSchema.optional(),
  result: z.enum(['auto', 'text']).optional(),
  scopes: z.array(ScopeSchema).optional(),
  dedupe: z.boolean().optional(),
});

const ToolsFileSchema = z.strictObject({ tools: z.array(WorkflowToolSchema).min(1, 'list at least one tool') });

function toDefinition(entry: z.infer<typeof WorkflowToolSchema>, where: string): ToolDefinition {
  return {
    name: entry.name,
    ...(entry.title ? { title: entry.title } : {}),
    description: entry.description,
    inputSchema: compile(entry.inputSchema, `${where}: inputSchema`),
    ...(entry.outputSchema ? { outputSchema: compile(entry.outputSchema, `${where}: outputSchema`) } : {}),
    taskMode: entry.taskMode,
    workflowType: entry.workflowType,
    ...(entry.taskQueue ? { taskQueue: entry.taskQueue } : {}),
    ...(entry.executionTimeout !== undefined ? { executionTimeout: entry.executionTimeout } : {}),
    ...(entry.result ? { result: entry.result } : {}),
    ...(entry.scopes?.length ? { scopes: entry.scopes } : {}),
    ...(entry.dedupe === false ? { dedupe: false } : {}),
  };
}

/** A Standard Schema (with its JSON Schema for tools/list) from JSON Schema; a schema that does not compile is refused now. */
function compile(schema: JsonSchemaObject, where: string) {
  try {
    return fromJsonSchema(schema as never);
  } catch (err) {
    throw new ToolsFileError(`${where}: not a valid JSON Schema: ${(err as Error).message}`);
  }
}

/** "tool "greet" (tools[0]): taskMode: ..." for every issue; the tool is named by its name when it has one. */
function describeIssues(issues: z.core.$ZodIssue[], entries: unknown[], scope: 'file' | 'tool'): string {
  return issues
    .map((issue) => {
      const path = [...issue.path];
      let where = '';
      if (scope === 'file' && path[0] === 'tools' && typeof path[1] === 'number') {
        const i = path[1];
        const name = (entries[i] as { name?: unknown } | undefined)?.name;
        where = `tool ${typeof name === 'string' ? `"${name}" ` : ''}(tools[${i}]): `;
        path.splice(0, 2);
      } else if (scope === 'tool') {
        const name = (entries[0] as { name?: unknown } | undefined)?.name;
        where = `tool ${typeof name === 'string' ? `"${name}"` : '(unnamed)'}: `;
      }
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const field =
        [...path.map(String), ...(keys.length === 1 ? keys : [])].join('.') || (scope === 'file' && !where ? '(file)' : '(tool)');
      const message =
        issue.code === 'unrecognized_keys'
          ? keys.length === 1
            ? 'unknown field'
            : `unknown fields ${keys.join(', ')}`
          : issue.code === 'invalid_type' && /received undefined$/.test(issue.message)
            ? 'required'
            : issue.message;
      return `${where}${field}: ${message}`;
    })
    .join('; ');
}
