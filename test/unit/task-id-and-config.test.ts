import { ConfigError, parseServerConfig } from '../../src/mcp/config';
import { isTaskId, mintTaskId } from '../../src/tasks/task-id';
import { summarize } from '../../src/mcp/tools-call';

test('task ids carry 192 random bits, URL-safe, and validate', () => {
  const ids = new Set(Array.from({ length: 1000 }, mintTaskId));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(isTaskId(id)).toBe(true);
  expect(Buffer.from([...ids][0].slice(5), 'base64url')).toHaveLength(24);
});

test.each([undefined, 42, '', 'task_', 'task_short', `task_${'A'.repeat(33)}`, 'task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/', 'TASK_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'])(
  'isTaskId rejects %p',
  (value) => expect(isTaskId(value)).toBe(false),
);

test('config: defaults, env and flags (flags win)', () => {
  expect(parseServerConfig({}, {})).toMatchObject({ host: '127.0.0.1', port: 3000, taskQueue: 'mcp-tasks', strictHeaders: false });
  expect(parseServerConfig({ port: '4001' }, { MCP_PORT: '4000', MCP_POLL_INTERVAL_MS: '250', MCP_STRICT_HEADERS: 'true' }))
    .toMatchObject({ port: 4001, pollIntervalMs: 250, strictHeaders: true });
  expect(parseServerConfig({}, { MCP_STRICT_HEADERS: 'false' })).toMatchObject({ strictHeaders: false });
  expect(parseServerConfig({ strictHeaders: false }, { MCP_STRICT_HEADERS: 'true' })).toMatchObject({ strictHeaders: false });
});

test.each([
  [{ port: 'abc' }, /port \(--port or MCP_PORT\)/],
  [{ port: '70000' }, /port/],
  [{ ttlMs: '-5' }, /ttlMs \(--ttl-ms or MCP_TASK_TTL_MS\)/],
  [{ pollIntervalMs: '0' }, /pollIntervalMs/],
])('config: %j is refused clearly', (flags, message) => {
  expect(() => parseServerConfig(flags, {})).toThrow(ConfigError);
  expect(() => parseServerConfig(flags, {})).toThrow(message);
});

test('summaries for the Temporal UI are short and truncate long values', () => {
  expect(summarize('wait_and_echo', { text: 'hi', seconds: 3 })).toBe('wait_and_echo(text="hi", seconds=3)');
  const long = summarize('t', { text: 'x'.repeat(5000), nested: { a: 'y'.repeat(500) } });
  expect(long.length).toBeLessThanOrEqual(200);
  expect(long).toContain('…');
  expect(summarize('login', { user: 'ann', password: 'hunter2', apiKey: 'k-123', sessionToken: 'x' })).toBe('login(user="ann", password=***, apiKey=***, sessionToken=***)');
  // at any depth, in objects and arrays
  const nested = summarize('deploy', { target: { db: { password: 'hunter2' } }, users: [{ name: 'a', apiToken: 'tok-9' }] });
  expect(nested).not.toMatch(/hunter2|tok-9/);
  expect(nested).toBe('deploy(target={"db":{"password":"***"}}, users=[{"name":"a","apiToken":"***"}])');
});
