/** Per-tool scopes: who may call a tool, and the challenge when a scope is missing. */
import { ToolScopes } from '../../../../src/mcp/auth/tool-scopes';

describe('per-tool scopes', () => {
  const scopes = new ToolScopes(['mcp'], new Set(['mcp', 'tools:admin', 'reports']));
  const auth = (s: string[]) => ({ token: 't', clientId: 'c', scopes: s });
  const tool = { name: 'admin_echo', scopes: ['tools:admin'] };

  test('a tool without scopes is open to every authenticated caller; without authentication nothing is checked', () => {
    expect(scopes.mayCall({ name: 'x' }, auth([]))).toBe(true);
    expect(scopes.mayCall(tool, undefined)).toBe(true);
    expect(scopes.challenge({ name: 'x' })).toBeUndefined();
  });

  test("the challenge asks for the required scopes, those held here, and the tool's; nothing when they are held", () => {
    const challenge = scopes.challenge(tool)!;
    expect(challenge({ request: {} as never, authInfo: auth(['mcp', 'reports', 'profile']) })).toEqual({
      scopes: ['mcp', 'reports', 'tools:admin'],
      errorDescription: 'tool admin_echo needs scope tools:admin',
    });
    expect(challenge({ request: {} as never, authInfo: auth(['mcp', 'tools:admin']) })).toBeUndefined();
    expect(challenge({ request: {} as never })).toBeUndefined();
  });
});
