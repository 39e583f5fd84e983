/** `--tools-module` for the benches: the demo tools and bench:follow's provision, on a worker that also runs the raw baseline (plainTimer). */
import { defineTool } from 'mcp-temporal-tasks';
import * as z from 'zod';
import { tools as demoTools } from '../../examples/demo/tools';
import { provisionWithApproval } from './workflows';

export * as activities from '../../examples/demo/activities';
export const workflowsPath = require.resolve('./workflows');

/** A provision with one approval in it, whose length the bench sets (bench/follow.ts). */
export const provisionWithApprovalTool = defineTool({
  name: 'provision_with_approval',
  description: 'Provisions an environment step by step, asking for approval once on the way.',
  inputSchema: z.object({
    name: z.string().min(1).max(200),
    steps: z.number().int().min(1).max(100),
    stepMs: z.number().int().min(0).max(3_600_000),
    approvalAfter: z.number().int().min(0).max(100),
  }),
  taskMode: 'optional',
  workflow: provisionWithApproval,
});

export const tools = [...demoTools, provisionWithApprovalTool];
