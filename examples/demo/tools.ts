/** The demo tools: each is a schema, a task mode and the workflow that runs it. */
import { defineTool } from 'mcp-temporal-tasks';
import * as z from 'zod';
import { approveExpense, collectApprovals, exportReport, provisionEnvironment, waitAndEcho } from './workflows';

export const waitAndEchoInput = z.object({
  text: z.string().max(100_000).describe('The text to return'),
  seconds: z.number().min(0).max(86_400).describe('How long to wait, 0..86400'),
});

export const waitAndEchoTool = defineTool({
  name: 'wait_and_echo',
  description: 'Waits on a durable timer for `seconds`, then returns `text`.',
  inputSchema: waitAndEchoInput,
  taskMode: 'optional',
  workflow: waitAndEcho,
});

export const approveExpenseInput = z.object({
  amount: z.number().positive().describe('Amount, greater than 0'),
  description: z.string().min(1).max(10_000).describe('What the expense is for'),
});

export const approveExpenseTool = defineTool({
  name: 'approve_expense',
  description: 'Asks a human to approve an expense (one form elicitation) and reports the decision.',
  inputSchema: approveExpenseInput,
  taskMode: 'required',
  workflow: approveExpense,
});

export const provisionEnvironmentInput = z.object({
  name: z.string().min(1).max(200).describe('Environment name'),
  steps: z.number().int().min(1).max(50).optional().describe('Number of steps (default 3)'),
  stepMs: z.number().int().min(0).max(600_000).optional().describe('Duration of one step in ms (default 1000)'),
});

export const provisionEnvironmentTool = defineTool({
  name: 'provision_environment',
  description: 'Provisions an environment in several steps; cancelling undoes the steps already done.',
  inputSchema: provisionEnvironmentInput,
  taskMode: 'optional',
  workflow: provisionEnvironment,
});

export const collectApprovalsInput = z.object({
  approvers: z.array(z.string().min(1).max(200)).min(1).max(1000).describe('Approvers, asked in this order'),
});

export const collectApprovalsTool = defineTool({
  name: 'collect_approvals',
  description: 'Asks each approver in turn (one elicitation each); completes when all approved.',
  inputSchema: collectApprovalsInput,
  taskMode: 'required',
  workflow: collectApprovals,
});

export const exportReportInput = z.object({ rows: z.number().int().min(1).max(1_000_000).describe('Number of rows') });

export const exportReportTool = defineTool({
  name: 'export_report',
  description: 'Exports a CSV report of `rows` rows as text. Results over 1.5 MB fail the task clearly.',
  inputSchema: exportReportInput,
  taskMode: 'optional',
  workflow: exportReport,
});

export const tools = [waitAndEchoTool, approveExpenseTool, provisionEnvironmentTool, collectApprovalsTool, exportReportTool];
