/** Negotiating the tasks extension. */

test('the extension id is ext-tasks\' own', async () => {
  const { TASKS_EXTENSION_ID_V2 } = await import('@modelcontextprotocol/ext-tasks/core/v2');
  const { TASKS_EXTENSION } = await import('../../../src/mcp/negotiation');
  expect(TASKS_EXTENSION).toBe(TASKS_EXTENSION_ID_V2);
});
