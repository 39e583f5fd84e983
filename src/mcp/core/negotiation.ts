import { type AuthInfo, CLIENT_CAPABILITIES_META_KEY, type ServerContext } from '@modelcontextprotocol/server';

/** ext-tasks' TASKS_EXTENSION_ID_V2 (ESM-only, so not importable here at run time; a unit test checks they agree). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

interface Envelope {
  [CLIENT_CAPABILITIES_META_KEY]?: { extensions?: Record<string, unknown> };
}

/**
 * Whether THIS request declares the Tasks extension in its `_meta` envelope. Earlier requests
 * do not count, a 2025-11-25 `params.task` does not count, and 2025-11-25 requests carry no envelope.
 */
export function declaresTasks(ctx: ServerContext): boolean {
  return declaresTasksIn(ctx.mcpReq.envelope as Envelope | undefined); // typed {} in the SDK's typings
}

/** The same check on a request's `_meta`, for requests served in front of the SDK. */
export function declaresTasksIn(meta: object | undefined): boolean {
  const declared = (meta as Envelope | undefined)?.[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[TASKS_EXTENSION];
  return declared !== undefined && declared !== null && typeof declared === 'object';
}

/**
 * The authenticated caller of this request, if authentication is on: it owns the tasks it
 * creates. The end user where the token names one (OAuth `sub`, or `user`), else the client.
 */
export function principalOf(ctx: ServerContext): string | undefined {
  return principalOfAuth(ctx.http?.authInfo);
}

export function principalOfAuth(auth: AuthInfo | undefined): string | undefined {
  if (!auth) return undefined;
  // OAuth tokens name their owner fully (issuer, user, client: src/mcp/auth/claims.ts)
  if (typeof auth.extra?.principal === 'string' && auth.extra.principal) return auth.extra.principal;
  const user = auth.extra?.sub ?? auth.extra?.user;
  return typeof user === 'string' && user ? `user:${user}` : `client:${auth.clientId}`;
}
