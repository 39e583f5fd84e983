/** The one-line summary of a tool call shown in the Temporal UI. */
import { summarize } from '../../../../src/mcp/core/tools-call';

test('summaries for the Temporal UI are short and truncate long values', () => {
  expect(summarize('wait_and_echo', { text: 'hi', seconds: 3 })).toBe('wait_and_echo(text="hi", seconds=3)');
  const long = summarize('t', { text: 'x'.repeat(5000), nested: { a: 'y'.repeat(500) } });
  expect(long.length).toBeLessThanOrEqual(200);
  expect(long).toContain('…');
  expect(summarize('login', { user: 'ann', password: 'hunter2', apiKey: 'k-123', sessionToken: 'x' })).toBe(
    'login(user="ann", password=***, apiKey=***, sessionToken=***)',
  );
  // at any depth, in objects and arrays
  const nested = summarize('deploy', { target: { db: { password: 'hunter2' } }, users: [{ name: 'a', apiToken: 'tok-9' }] });
  expect(nested).not.toMatch(/hunter2|tok-9/);
  expect(nested).toBe('deploy(target={"db":{"password":"***"}}, users=[{"name":"a","apiToken":"***"}])');
});

test('the summary hides names at any depth and credential values under any name', () => {
  const line = summarize('pay', {
    card: { number: '4111', cvc: '123' },
    pin: '0000',
    note: 'AWS_SECRET_ACCESS_KEY=abc123',
    dsn: 'mysql://u:p@h/db',
    amount: 5,
  });
  expect(line).toBe('pay(card={"number":"4111","cvc":"***"}, pin=***, note="AWS_SECRET_ACCESS_KEY=***", dsn=***, amount=5)');
});
