/** Where protected resource metadata is served. */
import { isPrmPath } from '../../../../src/mcp/auth/protected-resource-metadata';

test('protected resource metadata paths: root, the MCP path, and the public resource path', () => {
  const resource = new URL('https://example.com/tools/mcp');
  expect(isPrmPath('/.well-known/oauth-protected-resource', '/mcp', resource)).toBe(true);
  expect(isPrmPath('/.well-known/oauth-protected-resource/mcp', '/mcp', resource)).toBe(true);
  expect(isPrmPath('/.well-known/oauth-protected-resource/tools/mcp/', '/mcp', resource)).toBe(true);
  expect(isPrmPath('/.well-known/oauth-protected-resource/other', '/mcp', resource)).toBe(false);
});
