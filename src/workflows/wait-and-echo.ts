import { sleep } from '@temporalio/workflow';
import { setStatusMessage, textResult } from './task-runtime';
import type { CallToolResult } from './task-types';

export interface WaitAndEchoArgs {
  text: string;
  seconds: number;
}

/** A durable timer, then the text back. Cancelling it mid-wait ends the task cancelled. */
export async function waitAndEcho({ text, seconds }: WaitAndEchoArgs): Promise<CallToolResult> {
  setStatusMessage(`waiting ${seconds} s`);
  await sleep(seconds * 1000);
  return textResult(text);
}
