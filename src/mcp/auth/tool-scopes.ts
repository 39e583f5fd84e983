import type { AuthInfo, ScopeChallengeHandler } from '@modelcontextprotocol/server';
import { SCOPE_TOKEN } from './oauth-config';

/** What the per-tool scope checks need to know of a tool. */
export interface ScopedTool {
  name: string;
  scopes?: readonly string[];
}

/**
 * Per-tool scopes. A tool naming scopes is listed and callable only for tokens that carry all
 * of them; without authentication nothing is checked (there is no token to read scopes from).
 */
export class ToolScopes {
  /** `required`: the scopes every request needs; `known`: every scope this server speaks of (scopes_supported). */
  constructor(
    private readonly required: readonly string[],
    private readonly known: ReadonlySet<string>,
  ) {}

  missing(tool: ScopedTool, auth: AuthInfo | undefined): string[] {
    if (!auth || !tool.scopes?.length) return [];
    return tool.scopes.filter((s) => !auth.scopes.includes(s));
  }

  mayCall(tool: ScopedTool, auth: AuthInfo | undefined): boolean {
    return this.missing(tool, auth).length === 0;
  }

  /**
   * The SDK's scope challenge for a tool (HTTP 403 `insufficient_scope` before the call is
   * served). It asks for the whole set the client needs after step-up: the required scopes,
   * the ones it already holds here and the tool's, so stepping up loses nothing.
   */
  challenge(tool: ScopedTool): ScopeChallengeHandler | undefined {
    if (!tool.scopes?.length) return undefined;
    return ({ authInfo }) => {
      const missing = this.missing(tool, authInfo);
      if (!missing.length || !authInfo) return undefined;
      const held = authInfo.scopes.filter((s) => this.known.has(s) && SCOPE_TOKEN.test(s));
      const scopes = [...new Set([...this.required, ...held, ...tool.scopes!])] as [string, ...string[]];
      return { scopes, errorDescription: `tool ${printable(tool.name)} needs scope ${missing.map(printable).join(' ')}` };
    };
  }
}

/** RFC 6750 error-description characters only. */
function printable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}
