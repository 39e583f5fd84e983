import { setStatusMessage } from './task-runtime';
import type { CallToolResult } from './task-types';

export interface ExportReportArgs {
  rows: number;
}

/** Builds a CSV report inline. Past the payload limit the runtime fails the task clearly. */
export async function exportReport({ rows }: ExportReportArgs): Promise<CallToolResult> {
  setStatusMessage(`exporting ${rows} rows`);
  const lines = ['id,name,amount'];
  for (let i = 1; i <= rows; i++) lines.push(`${i},item-${i},${(i * 7) % 1000}.00`);
  return { content: [{ type: 'text', text: lines.join('\n') }] };
}
