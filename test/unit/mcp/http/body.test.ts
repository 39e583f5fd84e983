/** The request body: nesting depth scanned before parsing (HTTP), and of a parsed value (stdio). */
import { nestsDeeperThan, parseBody, valueNestsDeeperThan } from '../../../../src/mcp/http/body';

describe('nesting depth before parsing', () => {
  test.each([
    ['{}', 1, false],
    ['{"a":[1,{"b":2}]}', 3, false],
    ['{"a":[1,{"b":2}]}', 2, true],
    ['"[[[[[[[[[["', 1, false], // brackets in strings do not count
    ['["\\"[[[[[["]', 1, false], // nor after an escaped quote
    ['[[[]]][[[]]]', 3, false], // depth, not count
  ])('%s within %i: deeper=%s', (text, max, deeper) => expect(nestsDeeperThan(text, max)).toBe(deeper));

  test('4 MB of [ is refused without parsing', () => {
    const text = '['.repeat(4 * 1024 * 1024);
    const parse = jest.spyOn(JSON, 'parse');
    expect(parseBody(text, 64)).toEqual({ tooDeep: true });
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
  });

  test('a 4 MB flat body is scanned, and is not too deep', () => {
    const text = JSON.stringify({ a: 'x'.repeat(4 * 1024 * 1024 - 20) });
    expect(nestsDeeperThan(text, 64)).toBe(false);
  });

  test('not JSON: no value, the SDK answers it', () => expect(parseBody('{nope', 64)).toEqual({ text: '{nope', json: undefined }));
});

test('argument depth over stdio (no body scan there): iterative, any depth', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  expect(valueNestsDeeperThan(deep, 64)).toBe(true);
  expect(valueNestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
  expect(valueNestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
});
