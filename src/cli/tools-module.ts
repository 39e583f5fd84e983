import path from 'node:path';
import * as z from 'zod';
import type { ToolDefinition } from '../tool-definition';
import { toolsFromFile } from '../mcp/workflow-tools';

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
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the user's module, by path at run time
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

/**
 * What `serve` and `dev` serve: the tools module's tools (when one is named) and the tools of a
 * tools file (`--tools`, MCP_TOOLS_FILE), side by side. A bad tools file throws ToolsFileError
 * naming the tool and the field; at least one of the two is needed.
 */
export function loadServedTools(
  moduleFile: string | undefined,
  toolsFile: string | undefined,
): { module?: ToolsModule; tools: ToolDefinition[] } {
  const fileTools = toolsFile ? toolsFromFile(toolsFile) : [];
  if (!moduleFile && toolsFile) return { tools: fileTools };
  if (!moduleFile)
    throw new ToolsModuleError('no tools: pass --tools-module <file> (MCP_TOOLS_MODULE) and/or --tools <file> (MCP_TOOLS_FILE)');
  const module = loadToolsModule(moduleFile);
  return { module, tools: [...module.tools, ...fileTools] };
}
