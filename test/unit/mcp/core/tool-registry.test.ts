/** The server's tools by name: each name once, scopes that are scope tokens, a workflow type for every Temporal-backed tool. */
import * as z from 'zod';
import { ToolRegistry } from '../../../../src/mcp/core/tool-registry';
import type { ToolDefinition } from '../../../../src/tool-definition';

const tool = (name: string, more: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: 'd',
  inputSchema: z.object({}),
  taskMode: 'optional',
  workflowType: 'W',
  ...more,
});

test('tools are listed in registration order and found by name', () => {
  const registry = new ToolRegistry([tool('a')]).register(tool('b'), tool('c'));
  expect(registry.list().map((t) => t.name)).toEqual(['a', 'b', 'c']);
  expect(registry.get('b')?.name).toBe('b');
  expect(registry.get('nope')).toBeUndefined();
  expect(new ToolRegistry().list()).toEqual([]);
});

test("a workflow function's name is its workflow type; a local tool needs none", () => {
  async function ShipOrder() {
    return { content: [] };
  }
  expect(new ToolRegistry([tool('ship', { workflowType: undefined, workflow: ShipOrder })]).list()).toHaveLength(1);
  expect(new ToolRegistry([tool('here', { workflowType: undefined, local: async () => 'answered here' })]).list()).toHaveLength(1);
});

test.each<[string, ToolDefinition[], string]>([
  ['a name twice', [tool('a'), tool('a')], 'tool "a" is registered twice'],
  ['a scope that is not a scope token', [tool('a', { scopes: ['two words'] })], 'tool "a": scope "two words" is not an OAuth scope token'],
  ['a quote in a scope', [tool('a', { scopes: ['a"b'] })], 'is not an OAuth scope token'],
  [
    'a nameless workflow function',
    [tool('a', { workflowType: undefined, workflow: (() => async () => ({ content: [] }))() })],
    'tool "a": its workflow function has no name (the workflow type)',
  ],
  ['no workflow at all', [tool('a', { workflowType: undefined })], 'its workflow function has no name'],
])('refused: %s', (_, tools, message) => {
  expect(() => new ToolRegistry(tools)).toThrow(message);
});
