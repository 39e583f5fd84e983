/**
 * The fast tier's worker runs the demo workflows, the conformance fixtures and the few
 * workflows below, which exercise corners of the task runtime no demo tool reaches.
 */
import { condition, sleep } from '@temporalio/workflow';
import { type CallToolResult, continueAsNewIfNeeded, type InputRequest, protocolError, requestInput, setStatusMessage, textResult } from 'mcp-temporal-tasks/workflow';

// the demo's workflows, the conformance fixtures and the process tests' own
export * from '../fixtures/workflows';

const question = (message: string): InputRequest => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
}) as InputRequest;

/** Asks under the same key twice: the second ask is a bug in the tool and fails the task. */
export async function reusedKey(): Promise<CallToolResult> {
  await requestInput('same', question('first time?'));
  await requestInput('same', question('second time?'));
  return textResult('asked twice');
}

/** Ends with a JSON-RPC error of its own code and data. */
export async function customProtocolError({ code }: { code: number }): Promise<CallToolResult> {
  setStatusMessage('about to fail');
  throw protocolError(code, 'custom protocol failure', { reason: 'test' });
}

/** Sets the same status message in three activations, then two messages in one. */
export async function repeatsItself(): Promise<CallToolResult> {
  for (let i = 0; i < 3; i++) {
    setStatusMessage('the same');
    await sleep(10);
  }
  setStatusMessage('first of two');
  setStatusMessage('second of two');
  await sleep(10);
  return textResult('done');
}

/** Publishes a status message, then waits until cancelled. */
export async function statusAndWait({ message }: { message: string }): Promise<CallToolResult> {
  setStatusMessage(message);
  await condition(() => false);
  return textResult('unreachable');
}

/**
 * Asks in its first run, continues as new (the task's historyLimit must be 1), and waits on the
 * same key in the second run, asked with a different message: what tasks/get shows in between
 * tells whether the pending request and the statusMessage crossed over.
 */
export async function acrossRuns({ run = 0 }: { run?: number }): Promise<CallToolResult> {
  if (run === 0) {
    setStatusMessage('set in the first run');
    void requestInput('q', question('asked in run 0'));
    await continueAsNewIfNeeded({ run: 1 });
    return textResult('did not continue as new');
  }
  const answer = await requestInput<{ content?: { ok?: boolean } }>('q', question('asked in run 1'));
  return textResult(`answered in run ${run}: ${answer.content?.ok}`);
}
