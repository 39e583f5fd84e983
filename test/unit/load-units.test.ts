/** Issue 24: the pieces that need no Temporal (depth scan, masking, static tokens, log redaction, watch limits). */
import { nestsDeeperThan, parseBody, valueNestsDeeperThan } from '../../src/mcp/http/body';
import { UncompilableSchemaError, whyResponseDoesNotFit } from '../../src/tasks/input-responses';
import { isSecretName, maskSecretValues } from '../../src/mcp/masking';
import { StaticTokenVerifier } from '../../src/mcp/http/auth';
import { summarize } from '../../src/mcp/tools-call';
import { WatchLimits } from '../../src/mcp/watch-limits';
import { redactPayloadFields } from '../../src/cli/worker-runtime';
import { MissPacing } from '../../src/tasks/miss-pacing';

describe('nesting depth before parsing', () => {
  test.each([
    ['{}', 1, false],
    ['{"a":[1,{"b":2}]}', 3, false],
    ['{"a":[1,{"b":2}]}', 2, true],
    ['"[[[[[[[[[["', 1, false], // brackets in strings do not count
    ['["\\"[[[[[["]', 1, false], // nor after an escaped quote
    ['[[[]]][[[]]]', 3, false], // depth, not count
  ])('%s within %i: deeper=%s', (text, max, deeper) => expect(nestsDeeperThan(text, max)).toBe(deeper));

  test('4 MB of [ is refused in milliseconds, without parsing', () => {
    const text = '['.repeat(4 * 1024 * 1024);
    const started = performance.now();
    expect(parseBody(text, 64)).toEqual({ tooDeep: true });
    expect(performance.now() - started).toBeLessThan(50);
  });

  test('a 4 MB flat body is scanned in milliseconds too', () => {
    const text = JSON.stringify({ a: 'x'.repeat(4 * 1024 * 1024 - 20) });
    const started = performance.now();
    expect(nestsDeeperThan(text, 64)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });

  test('not JSON: no value, the SDK answers it', () => expect(parseBody('{nope', 64)).toEqual({ text: '{nope', json: undefined }));
});

describe('secret masking in the task summary', () => {
  test.each(['pwd', 'pw', 'pin', 'otp', 'cvv', 'ssn', 'jwt', 'bearer', 'creds', 'sig', 'cvc', 'userPwd', 'card_pin', 'X-Api-Key', 'password', 'clientSecret', 'privateKey'])('%s is a secret name', (name) =>
    expect(isSecretName(name)).toBe(true),
  );
  test.each(['spinner', 'shopping', 'design', 'signal', 'description', 'amount', 'name', 'opinion'])('%s is not', (name) => expect(isSecretName(name)).toBe(false));

  test.each([
    ['postgres://app:hunter2@db.internal:5432/app', 'postgres://app:***@db.internal:5432/app'],
    ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS_SECRET_ACCESS_KEY=***'],
    ['export DB_PASSWORD="s3 cret" && run', 'export DB_PASSWORD=*** && run'],
    ['Authorization: Bearer abcdefghijklmnop', 'Authorization: Bearer ***'],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_abc', 'token ***'],
    ['key AKIAIOSFODNN7EXAMPLE here', 'key *** here'],
    ['sk-proj-abcdefghijklmnopqrstuvwx', '***'],
    ['just a normal sentence: 12 apples', 'just a normal sentence: 12 apples'],
  ])('value %s', (value, expected) => expect(maskSecretValues(value)).toBe(expected));

  test('the summary hides names at any depth and credential values under any name', () => {
    const line = summarize('pay', { card: { number: '4111', cvc: '123' }, pin: '0000', note: 'AWS_SECRET_ACCESS_KEY=abc123', dsn: 'mysql://u:p@h/db', amount: 5 });
    expect(line).toBe('pay(card={"number":"4111","cvc":"***"}, pin=***, note="AWS_SECRET_ACCESS_KEY=***", dsn=***, amount=5)');
  });
});

describe('static tokens', () => {
  test('two principals with the same token are refused at startup, naming both', () => {
    expect(() => StaticTokenVerifier.parse('alice:tok-shared-1234,bob:tok-shared-1234', 'MCP_AUTH_TOKENS')).toThrow(
      'MCP_AUTH_TOKENS: the same bearer token is given to two principals (alice and bob)',
    );
  });
  test('distinct tokens still map to their principals', async () => {
    const v = StaticTokenVerifier.parse('alice:tok-a,bob:tok-b', 'x');
    expect((await v.verifyAccessToken('tok-b')).clientId).toBe('bob');
  });
});

describe('worker logs with a payload codec', () => {
  test('statusMessage is hidden at info and above, kept at debug, untouched without a codec', () => {
    const fields = { taskId: 't', statusMessage: 'paying card 4111 1111' };
    expect(redactPayloadFields(fields, 'info', true)).toEqual({ taskId: 't', statusMessage: '[hidden: payload codec on]' });
    expect(redactPayloadFields(fields, 'warn', true).statusMessage).toBe('[hidden: payload codec on]');
    expect(redactPayloadFields(fields, 'debug', true)).toBe(fields);
    expect(redactPayloadFields(fields, 'info', false)).toBe(fields);
  });
});

describe('watch limits', () => {
  test('per caller, per server, and places given back', () => {
    const limits = new WatchLimits({ maxSubscribedTasks: 3, maxSubscribedTasksPerCaller: 2 });
    const a = limits.reserve('alice', 2);
    expect(() => limits.reserve('alice')).toThrow(expect.objectContaining({ code: -32603, data: { scope: 'caller', limit: 2 } }));
    const b = limits.reserve(undefined);
    expect(() => limits.reserve('bob')).toThrow(expect.objectContaining({ data: { scope: 'server', limit: 3 } }));
    a(1);
    expect(limits.held).toBe(2);
    a();
    a(); // idempotent
    b();
    expect(limits.held).toBe(0);
  });
  test('holding gives the place back when the held call throws', async () => {
    const limits = new WatchLimits({ maxSubscribedTasks: 1, maxSubscribedTasksPerCaller: 1 });
    await expect(limits.holding('x', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(limits.held).toBe(0);
  });
});

test('miss pacing: no floor until enough describes, then their 95th percentile', () => {
  const p = new MissPacing();
  for (let i = 0; i < 10; i++) p.record(5);
  expect(p.floorMs()).toBe(0);
  for (let i = 1; i <= 100; i++) p.record(i);
  expect(p.floorMs()).toBeGreaterThanOrEqual(90);
});

describe('inputs other SDKs or other transports bring', () => {
  test('a form schema this server cannot compile is told apart (the store passes the answer unchecked, naming the key)', () => {
    const request = { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } } } as never;
    expect(() => whyResponseDoesNotFit(request, { action: 'accept', content: { a: 1 } })).toThrow(UncompilableSchemaError);
    expect(whyResponseDoesNotFit(request, { action: 'decline' })).toBeUndefined(); // nothing to check
  });
  test('argument depth over stdio (no body scan there): iterative, any depth', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(valueNestsDeeperThan(deep, 64)).toBe(true);
    expect(valueNestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(valueNestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
  });
});
