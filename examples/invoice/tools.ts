/** The invoice tool (docs/writing-tools.md). */
import { defineTool } from 'mcp-temporal-tasks';
import { sendInvoiceInput } from './api';
import { sendInvoiceWorkflow } from './workflows';

export const tools = [
  defineTool({
    name: 'send_invoice',
    description: 'Sends an invoice after a human confirms it.',
    inputSchema: sendInvoiceInput,
    taskMode: 'required', // 'never' | 'optional' | 'required'
    workflow: sendInvoiceWorkflow, // its argument must be what the schema produces, or this does not compile
  }),
];
