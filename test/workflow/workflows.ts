/**
 * The fast tier's worker runs the demo workflows, the conformance fixtures and the few
 * workflows below, which exercise corners of the task runtime no demo tool reaches.
 */
import { condition } from '@temporalio/workflow';
import { type CallToolResult, type InputRequest, protocolError, requestInput, setStatusMessage, textResult } from 'mcp-temporal-tasks/workflow';

export * from '../../examples/demo/workflows';
export * from '../fixtures/conformance/workflows';

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

/** Publishes a status message, then waits until cancelled. */
export async function statusAndWait({ message }: { message: string }): Promise<CallToolResult> {
  setStatusMessage(message);
  await condition(() => false);
  return textResult('unreachable');
}
