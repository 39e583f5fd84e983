import path from 'node:path';
import * as z from 'zod';
import type { ToolDefinition } from '../tools/registry';

/**
 * What `--tools-module` names: a module exporting `tools` (for serve), and for the worker the
 * module its workflows live in (`workflowsPath`, an absolute path) and its `activities`.
 */
const ToolsModuleSchema = z.object({
  tools: z.array(z.looseObject({ name: z.string() })).min(1, 'export at least one tool'),
  workflowsPath: z.string().optional(),
  activities: z.record(z.string(), z.unknown()).optional(),
});

export interface ToolsModule {
  tools: ToolDefinition[];
  workflowsPath?: string;
  activities?: Record<string, unknown>;
}

export class ToolsModuleError extends Error {}

export function loadToolsModule(file: string | undefined): ToolsModule {
  if (!file) throw new ToolsModuleError('no tools: pass --tools-module <file> (or MCP_TOOLS_MODULE), a module exporting `tools`');
  const resolved = path.resolve(file);
  let exported: unknown;
  try {
    exported = require(resolved);
  } catch (err) {
    throw new ToolsModuleError(`--tools-module ${file}: cannot load it: ${(err as Error).message}`);
  }
  const parsed = ToolsModuleSchema.safeParse(exported);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(module)'}: ${i.message}`).join('; ');
    throw new ToolsModuleError(`--tools-module ${file}: ${why}`);
  }
  return exported as ToolsModule;
}
