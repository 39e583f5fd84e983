/** The fixture tools the conformance suite calls; registered only with --conformance-tools. */
import { fromJsonSchema, inputRequired, MissingRequiredClientCapabilityError, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { defineTool, ToolDefinition } from './registry';

const none = z.object({});
const fixture = (name: string, description: string, extra: Partial<ToolDefinition> = {}): ToolDefinition =>
  defineTool({ name, description, inputSchema: none, taskMode: 'never', ...extra });

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

async function withProgress(_args: unknown, ctx: ServerContext) {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  for (const progress of [0, 50, 100]) {
    if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
    await new Promise((r) => setTimeout(r, 50));
  }
  return { content: [{ type: 'text', text: 'Progress complete' }], resultType: 'complete' };
}

function missingCapability(_args: unknown, ctx: ServerContext): Promise<unknown> {
  const caps = (ctx.mcpReq.envelope as Record<string, { sampling?: unknown }> | undefined)?.['io.modelcontextprotocol/clientCapabilities'];
  if (!caps?.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
  return Promise.resolve({ content: [{ type: 'text', text: 'sampling is available' }], resultType: 'complete' });
}

export const CONFORMANCE_TOOLS: ToolDefinition[] = [
  // The header-validation scenario calls the first listed tool with {}: keep this one first.
  fixture('test_simple_text', 'Returns simple text content'),
  fixture('test_image_content', 'Returns image content'),
  fixture('test_audio_content', 'Returns audio content'),
  fixture('test_embedded_resource', 'Returns an embedded resource'),
  fixture('test_multiple_content_types', 'Returns text, image and resource content'),
  fixture('test_error_handling', 'Returns a tool error (isError)'),
  fixture('test_tool_with_progress', 'Reports progress on the request stream', { local: withProgress }),
  fixture('test_missing_capability', 'Requires the sampling capability', { local: missingCapability }),
  fixture('test_logging_tool', 'Answers without logging notifications', {
    local: async () => ({ content: [{ type: 'text', text: 'No log messages were sent' }], resultType: 'complete' }),
  }),
  fixture('test_streaming_elicitation', 'Asks for input by MRTR', {
    local: async () => inputRequired({ inputRequests: { answer: inputRequired.elicit({ message: 'Your answer?', requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } } } as never) } }),
  }),
  defineTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12 as never),
    taskMode: 'never',
  }),
  defineTool({ name: 'greet', description: 'Greets by name', inputSchema: z.object({ name: z.string() }), taskMode: 'never' }),
  defineTool({
    name: 'slow_compute',
    description: 'Computes for `seconds`; ends cancelled when cancelled',
    inputSchema: z.object({ seconds: z.number().min(0).max(3600), label: z.string().optional() }),
    taskMode: 'optional',
  }),
  defineTool({ name: 'failing_job', description: 'A task that completes with a tool error', inputSchema: none, taskMode: 'required' }),
  defineTool({ name: 'protocol_error_job', description: 'A task that fails with a JSON-RPC error', inputSchema: none, taskMode: 'required' }),
  defineTool({ name: 'broken_job', description: 'Throws a TypeError without items (for tests)', inputSchema: z.object({ items: z.array(z.string()).optional() }), taskMode: 'optional' }),
  defineTool({ name: 'confirm_delete', description: 'Asks to confirm a deletion', inputSchema: z.object({ filename: z.string() }), taskMode: 'required' }),
  defineTool({ name: 'multi_input', description: 'Asks two questions at once', inputSchema: none, taskMode: 'required' }),
  defineTool({
    name: 'test_tool_with_task',
    description: 'Asks for user_name before the task exists, then runs as a task',
    inputSchema: z.looseObject({}),
    taskMode: 'optional',
    beforeTask: {
      key: 'user_name',
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      argument: 'user',
    },
  }),
];
