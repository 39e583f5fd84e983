/** Negotiating the tasks extension, and who the caller is. */
import { declaresTasks, declaresTasksIn, principalOf, principalOfAuth } from '../../../../src/mcp/core/negotiation';

test("the extension id is ext-tasks' own", async () => {
  const { TASKS_EXTENSION_ID_V2 } = await import('@modelcontextprotocol/ext-tasks/core/v2');
  const { TASKS_EXTENSION } = await import('../../../../src/mcp/core/negotiation');
  expect(TASKS_EXTENSION).toBe(TASKS_EXTENSION_ID_V2);
});

describe('whether a request declares the tasks extension', () => {
  const meta = (extensions: unknown) => ({ 'io.modelcontextprotocol/clientCapabilities': { extensions } });

  test("declared in this request's envelope: an object under the extension id", () => {
    expect(declaresTasksIn(meta({ 'io.modelcontextprotocol/tasks': {} }))).toBe(true);
    expect(declaresTasksIn(meta({ 'io.modelcontextprotocol/tasks': { anything: 1 } }))).toBe(true);
  });

  test.each([
    ['no envelope', undefined],
    ['an empty _meta', {}],
    ['no extensions', { 'io.modelcontextprotocol/clientCapabilities': {} }],
    ['another extension', meta({ 'io.example/other': {} })],
    ['null', meta({ 'io.modelcontextprotocol/tasks': null })],
    ['true', meta({ 'io.modelcontextprotocol/tasks': true })],
    ['a legacy params.task', { task: { ttl: 1000 } }],
  ])('not declared: %s', (_, m) => expect(declaresTasksIn(m)).toBe(false));

  test("declaresTasks reads the request context's envelope", () => {
    expect(declaresTasks({ mcpReq: { envelope: meta({ 'io.modelcontextprotocol/tasks': {} }) } } as never)).toBe(true);
    expect(declaresTasks({ mcpReq: {} } as never)).toBe(false);
  });
});

describe('the caller who owns the tasks it creates', () => {
  const auth = (extra?: Record<string, unknown>) => ({ token: 't', clientId: 'app', scopes: [], extra });

  test('none without authentication', () => {
    expect(principalOfAuth(undefined)).toBeUndefined();
    expect(principalOf({} as never)).toBeUndefined();
  });

  test('an OAuth principal as it is, else the user, else the client; prefixed so a user cannot pose as a client', () => {
    expect(principalOfAuth(auth({ principal: 'oauth:["https://a","alice","app"]', sub: 'alice' }))).toBe(
      'oauth:["https://a","alice","app"]',
    );
    expect(principalOfAuth(auth({ sub: 'alice' }))).toBe('user:alice');
    expect(principalOfAuth(auth({ user: 'bob' }))).toBe('user:bob');
    expect(principalOfAuth(auth({ principal: '', sub: '' }))).toBe('client:app');
    expect(principalOfAuth(auth({ sub: 7 }))).toBe('client:app');
    expect(principalOfAuth(auth())).toBe('client:app');
    expect(principalOf({ http: { authInfo: auth({ sub: 'alice' }) } } as never)).toBe('user:alice');
  });
});
