/** The HTTP server's pure parts: the Mcp-Name header value. */
import { mcpNameHeaderValue } from '../../../../src/mcp/http/routing-headers';

describe('Mcp-Name taken from the body', () => {
  test('plain ASCII names are used as they are', () => {
    expect(mcpNameHeaderValue('task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe('task_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(mcpNameHeaderValue('file:///a b.txt')).toBe('file:///a b.txt');
  });

  test.each(['héllo', ' padded', 'line\nbreak', '', '=?base64?aGk=?='])('%p is sent as a Base64 sentinel', (value) => {
    const header = mcpNameHeaderValue(value);
    expect(header).toMatch(/^=\?base64\?[A-Za-z0-9+/]*={0,2}\?=$/);
    expect(Buffer.from(header.slice(9, -2), 'base64').toString('utf8')).toBe(value);
    expect(() => new Headers({ 'mcp-name': header })).not.toThrow();
  });
});
