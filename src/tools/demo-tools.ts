import * as z from 'zod';
import { defineTool } from './registry';

export const waitAndEcho = defineTool({
  name: 'wait_and_echo',
  description: 'Waits on a durable timer for `seconds`, then returns `text`.',
  inputSchema: z.object({
    text: z.string().max(100_000).describe('The text to return'),
    seconds: z.number().min(0).max(86_400).describe('How long to wait, 0..86400'),
  }),
  taskMode: 'optional',
});

export const approveExpense = defineTool({
  name: 'approve_expense',
  description: 'Asks a human to approve an expense (one form elicitation) and reports the decision.',
  inputSchema: z.object({
    amount: z.number().positive().describe('Amount, greater than 0'),
    description: z.string().min(1).max(10_000).describe('What the expense is for'),
  }),
  taskMode: 'required',
});

export const provisionEnvironment = defineTool({
  name: 'provision_environment',
  description: 'Provisions an environment in several steps; cancelling undoes the steps already done.',
  inputSchema: z.object({
    name: z.string().min(1).max(200).describe('Environment name'),
    steps: z.number().int().min(1).max(50).optional().describe('Number of steps (default 3)'),
    stepMs: z.number().int().min(0).max(600_000).optional().describe('Duration of one step in ms (default 1000)'),
  }),
  taskMode: 'optional',
});

export const collectApprovals = defineTool({
  name: 'collect_approvals',
  description: 'Asks each approver in turn (one elicitation each); completes when all approved.',
  inputSchema: z.object({
    approvers: z.array(z.string().min(1).max(200)).min(1).max(1000).describe('Approvers, asked in this order'),
  }),
  taskMode: 'required',
});

export const exportReport = defineTool({
  name: 'export_report',
  description: 'Exports a CSV report of `rows` rows as text. Results over 1.5 MB fail the task clearly.',
  inputSchema: z.object({ rows: z.number().int().min(1).max(1_000_000).describe('Number of rows') }),
  taskMode: 'optional',
});

export const DEMO_TOOLS = [waitAndEcho, approveExpense, provisionEnvironment, collectApprovals, exportReport];
