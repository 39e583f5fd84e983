/**
 * Workflows behind the fixture tools that the official conformance suite calls
 * (enabled by --conformance-tools). Each is a real durable workflow.
 */
import { sleep } from '@temporalio/workflow';
import { elicit, protocolError, requestInputs, setStatusMessage, textResult, toolWorkflow } from './task-runtime';
import type { CallToolResult, InputRequest } from './task-types';

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WAV_EMPTY = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

export const greet = toolWorkflow(async ({ name }: { name: string }) => textResult(`Hello, ${name}!`));

export const slow_compute = toolWorkflow(async ({ seconds, label }: { seconds: number; label?: string }) => {
  setStatusMessage(`computing ${label ?? ''} for ${seconds} s`.replace('  ', ' '));
  await sleep(seconds * 1000);
  return textResult(`Computed ${label ?? 'result'} after ${seconds} s`);
});

export const failing_job = toolWorkflow(async () => {
  await sleep(500);
  return textResult('The job failed: the business rule was not met', true);
});

export const protocol_error_job = toolWorkflow(async (): Promise<CallToolResult> => {
  await sleep(200);
  throw protocolError(-32603, 'The job hit a protocol-level failure');
});

/** A bug in a tool's workflow code (not a conformance fixture: the tests' own). */
export const broken_job = toolWorkflow(async ({ items }: { items?: string[] }): Promise<CallToolResult> => {
  await sleep(100);
  return textResult(items!.join(', ')); // TypeError when items is missing
});

export const confirm_delete = toolWorkflow(async ({ filename }: { filename: string }) => {
  const answer = await elicit('confirm', `Delete ${filename}?`, {
    type: 'object',
    properties: { confirm: { type: 'boolean', description: 'Confirm the deletion' } },
    required: ['confirm'],
  });
  const confirmed = answer.action === 'accept' && (answer.content as { confirm?: boolean } | undefined)?.confirm === true;
  return textResult(confirmed ? `Deleted ${filename}` : `Kept ${filename}`);
});

const nameQuestion = (message: string): InputRequest => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } } },
}) as InputRequest;

export const multi_input = toolWorkflow(async () => {
  const answers = await requestInputs({ first: nameQuestion('First input?'), second: nameQuestion('Second input?') });
  return textResult(`Received ${Object.keys(answers).length} inputs`);
});

export const test_tool_with_task = toolWorkflow(async ({ user }: { user?: { name?: string } }) => {
  await sleep(200);
  return textResult(`Hello, ${user?.name ?? 'stranger'}!`);
});

export const test_simple_text = toolWorkflow(async () => textResult('This is a simple text response for testing.'));
export const test_image_content = toolWorkflow(async (): Promise<CallToolResult> => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] }));
export const test_audio_content = toolWorkflow(async (): Promise<CallToolResult> => ({ content: [{ type: 'audio', data: WAV_EMPTY, mimeType: 'audio/wav' }] }));
export const test_embedded_resource = toolWorkflow(async (): Promise<CallToolResult> => ({
  content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
}));
export const test_multiple_content_types = toolWorkflow(async (): Promise<CallToolResult> => ({
  content: [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
  ],
}));
export const test_error_handling = toolWorkflow(async () => textResult('This tool intentionally returns an error for testing', true));
export const json_schema_2020_12_tool = toolWorkflow(async (args: Record<string, unknown>) => textResult(JSON.stringify(args)));
