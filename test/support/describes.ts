/** How often a server reads tasks from Temporal: its describe() calls, counted on the real client. */
import type { Client } from '@temporalio/client';
import { waitFor } from './wait';

/** Counts the describe() calls a server's Temporal client makes (the real calls go through; jest.restoreAllMocks ends it). */
export function countDescribes(client: Client) {
  const spy = jest.spyOn(client.workflowService, 'describeWorkflowExecution');
  return {
    get count() {
      return spy.mock.calls.length;
    },
    of: (taskId: string) => spy.mock.calls.filter(([request]) => request.execution?.workflowId === taskId).length,
    reset: () => spy.mockClear(),
  };
}

/** Reads the task twice (the second read starts the watch), then until a read makes no describe(): the watch answers. */
export async function untilWatchAnswers(read: () => Promise<unknown>, client: Client): Promise<void> {
  await read();
  await read();
  const describes = countDescribes(client);
  await waitFor(async () => {
    describes.reset();
    await read();
    return describes.count === 0 || undefined;
  });
}
