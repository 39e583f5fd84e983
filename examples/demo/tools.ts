/** The demo tools: each is a schema (api.ts), a task mode and the workflow that runs it. */
import { defineTool } from 'mcp-temporal-tasks';
import { approveExpenseInput, collectApprovalsInput, exportReportInput, provisionEnvironmentInput, waitAndEchoInput } from './api';
import { approveExpense, collectApprovals, exportReport, provisionEnvironment, waitAndEcho } from './workflows';

export { approveExpenseInput, collectApprovalsInput, exportReportInput, provisionEnvironmentInput, waitAndEchoInput } from './api';

export const waitAndEchoTool = defineTool({
  name: 'wait_and_echo',
  description: 'Waits on a durable timer for `seconds`, then returns `text`.',
  inputSchema: waitAndEchoInput,
  taskMode: 'optional',
  workflow: waitAndEcho,
});

export const approveExpenseTool = defineTool({
  name: 'approve_expense',
  description: 'Asks a human to approve an expense (one form elicitation) and reports the decision.',
  inputSchema: approveExpenseInput,
  taskMode: 'required',
  workflow: approveExpense,
});

export const provisionEnvironmentTool = defineTool({
  name: 'provision_environment',
  description: 'Provisions an environment in several steps; cancelling undoes the steps already done.',
  inputSchema: provisionEnvironmentInput,
  taskMode: 'optional',
  workflow: provisionEnvironment,
});

export const collectApprovalsTool = defineTool({
  name: 'collect_approvals',
  description: 'Asks each approver in turn (one elicitation each); completes when all approved.',
  inputSchema: collectApprovalsInput,
  taskMode: 'required',
  workflow: collectApprovals,
});

export const exportReportTool = defineTool({
  name: 'export_report',
  description: 'Exports a CSV report of `rows` rows as text. Results over 1.5 MB fail the task clearly.',
  inputSchema: exportReportInput,
  taskMode: 'optional',
  workflow: exportReport,
});

export const tools = [waitAndEchoTool, approveExpenseTool, provisionEnvironmentTool, collectApprovalsTool, exportReportTool];
