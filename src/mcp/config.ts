import * as z from 'zod';
import { durationMs } from './duration';
import { DEFAULT_REQUEST_TIMEOUT_MS, defaultMaxConnections } from './http/connections';
import { OAUTH_ENV_VARS, OAuthSettingsSchema, oauthHint } from './auth/oauth-config';

/** Every setting of the MCP side, from flags and environment variables; one schema, clear errors. */
export const ServerConfigSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65_535).default(3000),
  taskQueue: z.string().min(1).default('mcp-tasks'),
  ttlMs: durationMs(z.number().int().positive()).default(24 * 60 * 60 * 1000),
  pollIntervalMs: durationMs(z.number().int().positive()).default(1000),
  /** Refuse requests that lack Mcp-Method / Mcp-Name (off: the value is taken from the body; a mismatch is refused either way). */
  strictHeaders: z.boolean().default(false),
  temporalTimeoutMs: durationMs(z.number().int().positive()).default(10_000),
  historyLimit: z.coerce.number().int().min(10).max(10_000).default(5_000),
  allowedHosts: z.array(z.string()).default([]),
  allowedOrigins: z.array(z.string()).default([]),
  maxBodyBytes: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  /** Open HTTP connections at most; at the cap a new one evicts the oldest idle one (src/mcp/http/connections.ts). Default: 4,096, or the open-file limit less 128 when that is lower. */
  maxConnections: z.coerce
    .number()
    .int()
    .min(1)
    .default(() => defaultMaxConnections()),
  /** Time a request's headers and body have to arrive; past it, 408 and the connection closes (Node's own default is 300 s). */
  requestTimeoutMs: durationMs(z.number().int().min(1_000).max(600_000)).default(DEFAULT_REQUEST_TIMEOUT_MS),
  /** Tasks subscribed at once (subscriptions/listen) on one replica, over all its streams. */
  maxSubscribedTasks: z.coerce.number().int().positive().default(10_000),
  /** Tasks one caller subscribes at once on one replica (without auth, all callers count as one). */
  maxSubscribedTasksPerCaller: z.coerce.number().int().positive().default(1_000),
  /** Deepest JSON nesting accepted in a request body; deeper is refused before parsing (-32602). */
  maxJsonDepth: z.coerce.number().int().min(8).max(1_000).default(64),
  /** Running tasks one caller owns at once, counted in Temporal across replicas (without auth, all callers are one); 0: no cap. */
  maxRunningTasksPerCaller: z.coerce.number().int().min(0).default(1_000),
  /** Running tasks started through this server's tools at once, counted in Temporal across replicas; 0: no cap. */
  maxRunningTasks: z.coerce.number().int().min(0).default(10_000),
  /** How long a visibility count may miss a start: starts of this replica that recent are added to it. */
  quotaLagMs: durationMs(z.number().int().min(0)).default(3_000),
  /** Execution timeout of a synchronous run (a call that gets no task handle): if its server dies, nobody can reach it. */
  syncRunTimeoutMs: durationMs(z.number().int().positive()).default(30 * 60 * 1000),
  /** A stuck task whose workflow task still fails this long after its cancel request is terminated (its undos could not run). */
  stuckCancelGraceMs: durationMs(z.number().int().min(0)).default(60_000),
  /** Input requests unanswered this long end their task failed (undos run); default: ttlMs; 0: no limit. */
  answerWithinMs: durationMs(z.number().int().min(0)).optional(),
  /** The same for tasks of anonymous callers (no authentication), when shorter; 0: no limit of its own. */
  anonymousAnswerWithinMs: durationMs(z.number().int().min(0)).default(60 * 60 * 1000),
  /** Key of the keyed hash that stands for a task's owner in Temporal; the same on every replica. */
  ownerKey: z.string().min(16, 'use at least 16 characters').optional(),
  /** Callers that do not declare Tasks get a task handle (and the task tools) instead of an error or an unbounded wait. */
  taskHandles: z.boolean().default(true),
  /** How long a call from such a caller (and each wait) holds before answering with the task's state. */
  handleWaitMs: durationMs(z.number().int().positive().max(600_000)).default(20_000),
  /** The same for a call that carried a progressToken: it gets progress notifications meanwhile, so it may be held longer. */
  progressWaitMs: durationMs(
    z
      .number()
      .int()
      .positive()
      .max(60 * 60 * 1000),
  ).default(5 * 60 * 1000),
  /** A call without Tasks dropped before its answer keeps its task this long: an identical retry attaches to it (0: off). */
  retryGraceMs: durationMs(
    z
      .number()
      .int()
      .min(0)
      .max(24 * 60 * 60 * 1000),
  ).default(10 * 60 * 1000),
  /** Name prefix of the task tools (wait, respond, cancel, list); letters, digits, _ and - only. */
  taskToolsPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - (1..40)')
    .default('task_'),
  /** A task read again within 10 s on this replica, its history unchanged, is watched there, and its polls are answered from the watch (src/tasks/watch/polled-tasks.ts). */
  watchPolledTasks: z.boolean().default(true),
  /** Keep answering -32021 for `required` tools to callers that do not declare Tasks (today's behaviour). */
  requiredToolsNeedTasks: z.boolean().default(false),
  /** The Temporal Web UI's address (e.g. http://localhost:8233): the task card links each task to its workflow there. */
  temporalUiUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Prometheus metrics (GET /metrics); off: nothing is recorded or served. */
  metrics: z.boolean().default(true),
  /** /metrics on a port of its own instead of the MCP port (0: a free one); stdio serves metrics only there. */
  metricsPort: z.coerce.number().int().min(0).max(65_535).optional(),
  metricsHost: z.string().min(1).default('127.0.0.1'),
  /** OAuth 2.1 resource server (issuer, resource, audiences, scopes...): see src/mcp/auth/oauth-config.ts. */
  oauth: OAuthSettingsSchema.optional(),
});
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
/** The same settings as the library takes them: every one optional, defaults from the schema. */
export type ServerConfigInput = Partial<z.input<typeof ServerConfigSchema>>;

/** The environment variables that back each setting (flags win over them). */
export const ENV_VARS: Partial<Record<keyof ServerConfig, string>> = {
  host: 'MCP_HOST',
  port: 'MCP_PORT',
  taskQueue: 'MCP_TASK_QUEUE',
  ttlMs: 'MCP_TASK_TTL_MS',
  pollIntervalMs: 'MCP_POLL_INTERVAL_MS',
  strictHeaders: 'MCP_STRICT_HEADERS',
  temporalTimeoutMs: 'MCP_TEMPORAL_TIMEOUT_MS',
  historyLimit: 'MCP_HISTORY_LIMIT',
  ownerKey: 'MCP_OWNER_KEY',
  maxSubscribedTasks: 'MCP_MAX_SUBSCRIBED_TASKS',
  maxSubscribedTasksPerCaller: 'MCP_MAX_SUBSCRIBED_TASKS_PER_CALLER',
  maxJsonDepth: 'MCP_MAX_JSON_DEPTH',
  maxConnections: 'MCP_MAX_CONNECTIONS',
  requestTimeoutMs: 'MCP_REQUEST_TIMEOUT_MS',
  maxRunningTasksPerCaller: 'MCP_MAX_RUNNING_TASKS_PER_CALLER',
  maxRunningTasks: 'MCP_MAX_RUNNING_TASKS',
  quotaLagMs: 'MCP_QUOTA_LAG_MS',
  syncRunTimeoutMs: 'MCP_SYNC_RUN_TIMEOUT_MS',
  stuckCancelGraceMs: 'MCP_STUCK_CANCEL_GRACE_MS',
  answerWithinMs: 'MCP_ANSWER_WITHIN_MS',
  anonymousAnswerWithinMs: 'MCP_ANONYMOUS_ANSWER_WITHIN_MS',
  taskHandles: 'MCP_TASK_HANDLES',
  handleWaitMs: 'MCP_HANDLE_WAIT_MS',
  progressWaitMs: 'MCP_PROGRESS_WAIT_MS',
  retryGraceMs: 'MCP_RETRY_GRACE_MS',
  taskToolsPrefix: 'MCP_TASK_TOOLS_PREFIX',
  requiredToolsNeedTasks: 'MCP_REQUIRED_TOOLS_NEED_TASKS',
  watchPolledTasks: 'MCP_WATCH_POLLED_TASKS',
  temporalUiUrl: 'MCP_TEMPORAL_UI_URL',
  metrics: 'MCP_METRICS',
  metricsPort: 'MCP_METRICS_PORT',
  metricsHost: 'MCP_METRICS_HOST',
};

const BOOLEAN_SETTINGS: ReadonlySet<string> = new Set([
  'strictHeaders',
  'taskHandles',
  'requiredToolsNeedTasks',
  'watchPolledTasks',
  'metrics',
]);

export class ConfigError extends Error {}

export function parseServerConfig(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  // the OAuth settings are a nested object: their own flags and variables, merged the same way first
  const merged = mergeSources(OAUTH_ENV_VARS, undefined, (flags.oauth ?? {}) as Record<string, unknown>, env);
  const oauth = Object.keys(merged).length ? merged : undefined; // neither names any OAuth setting: OAuth is off
  const spec = {
    schema: ServerConfigSchema,
    envVars: ENV_VARS,
    booleans: BOOLEAN_SETTINGS,
    nestedHints: { oauth: oauthHint },
    title: 'Invalid configuration',
  };
  return parseSettings(spec, { ...flags, oauth }, env);
}

/**
 * The one flag/environment merge: the environment first (empty variables count as unset,
 * boolean settings read `true`/`1`/`yes`), flags over it, then the schema; each error names the
 * setting, its flag and its variable. The server's and the CLI worker's settings both use it.
 */
export function parseSettings<S extends z.ZodObject>(
  spec: {
    schema: S;
    envVars: Partial<Record<string, string>>;
    booleans?: ReadonlySet<string>;
    nestedHints?: Record<string, (key: string) => string>;
    title: string;
  },
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const merged = mergeSources(spec.envVars, spec.booleans, flags, env, spec.schema.shape);
  const parsed = spec.schema.safeParse(merged);
  if (!parsed.success) {
    const hint = (path: PropertyKey[]) =>
      spec.nestedHints?.[String(path[0])]?.(String(path[1] ?? '')) ?? envHint(spec.envVars, String(path[0]));
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}${hint(i.path)}: ${i.message}`);
    throw new ConfigError(`${spec.title}:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Environment values (empty ones unset, booleans read `true`/`1`/`yes`), then the defined flags over them. */
function mergeSources(
  envVars: Partial<Record<string, string>>,
  booleans: ReadonlySet<string> | undefined,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  known?: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [key, envName] of Object.entries(envVars)) {
    const value = envName ? env[envName] : undefined;
    if (value !== undefined && value !== '') merged[key] = booleans?.has(key) ? /^(true|1|yes)$/i.test(value) : value;
  }
  for (const [key, value] of Object.entries(flags)) if (value !== undefined && (!known || key in known)) merged[key] = value;
  return merged;
}

function envHint(envVars: Partial<Record<string, string>>, key: string): string {
  const name = envVars[key];
  return name ? ` (--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} or ${name})` : '';
}
