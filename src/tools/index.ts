import { CONFORMANCE_TOOLS } from './conformance-tools';
import { DEMO_TOOLS } from './demo-tools';
import { ToolRegistry } from './registry';

export function buildRegistry(opts: { demoTools: boolean; conformanceTools: boolean }): ToolRegistry {
  const registry = new ToolRegistry();
  if (opts.conformanceTools) registry.register(...CONFORMANCE_TOOLS);
  if (opts.demoTools) registry.register(...DEMO_TOOLS);
  return registry;
}

export { defineTool, ToolRegistry } from './registry';
export type { ToolDefinition, TaskMode } from './registry';
