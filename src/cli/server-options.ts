/** The flags `dev` and `serve` share, and what the server is built from: its config, tokens and tools. */
import { Command, Option } from 'commander';
import { parseServerConfig, type ServerConfig } from '../mcp/config';
import { StaticTokenVerifier } from '../mcp/auth/static-tokens';
import { addOAuthOptions, oauthFlags } from '../mcp/auth/oauth-cli';
import { parseCliSettings } from './cli-settings';
import { loadServedTools } from './tools-module';

export function serverOptions(cmd: Command, defaultPort: string): Command {
  cmd
    .option('--host <host>', 'address the MCP endpoint binds to (MCP_HOST)')
    .option('--port <port>', `MCP endpoint port, 0 picks a free one (MCP_PORT, default ${defaultPort})`)
    .option('--task-queue <name>', 'Temporal task queue (MCP_TASK_QUEUE, default mcp-tasks)')
    .option('--ttl-ms <ms>', 'how long a task stays readable (MCP_TASK_TTL_MS; capped by namespace retention)')
    .option('--poll-interval-ms <ms>', 'pollIntervalMs advised to clients (MCP_POLL_INTERVAL_MS)')
    .option('--temporal-timeout-ms <ms>', 'bound on each Temporal call (MCP_TEMPORAL_TIMEOUT_MS, default 10000)')
    .option('--history-limit <events>', 'history length after which long tools continue as new (MCP_HISTORY_LIMIT)')
    .option('--max-subscribed-tasks <n>', 'tasks subscribed at once on this replica (MCP_MAX_SUBSCRIBED_TASKS, default 10000)')
    .option(
      '--max-subscribed-tasks-per-caller <n>',
      'tasks one caller subscribes at once (MCP_MAX_SUBSCRIBED_TASKS_PER_CALLER, default 1000)',
    )
    .option('--max-json-depth <n>', 'deepest JSON nesting accepted in a request body (MCP_MAX_JSON_DEPTH, default 64)')
    .option(
      '--max-connections <n>',
      'open HTTP connections at most; at the cap the oldest idle one is closed (MCP_MAX_CONNECTIONS, default 4096 or the open-file limit less 128)',
    )
    .option(
      '--request-timeout-ms <ms>',
      "time a request's headers and body have to arrive, else 408 (MCP_REQUEST_TIMEOUT_MS, default 30000)",
    )
    .option(
      '--max-running-tasks-per-caller <n>',
      'running tasks one caller owns at once, counted in Temporal; 0: no cap (MCP_MAX_RUNNING_TASKS_PER_CALLER, default 1000)',
    )
    .option(
      '--max-running-tasks <n>',
      "running tasks of this server's tools at once, counted in Temporal; 0: no cap (MCP_MAX_RUNNING_TASKS, default 10000)",
    )
    .option('--quota-lag-ms <ms>', 'starts this recent are added to the visibility count (MCP_QUOTA_LAG_MS, default 3000)')
    .option(
      '--sync-run-timeout-ms <ms>',
      'execution timeout of a synchronous run that gets no task handle (MCP_SYNC_RUN_TIMEOUT_MS, default 1800000)',
    )
    .option(
      '--stuck-cancel-grace-ms <ms>',
      'a cancelled task whose workflow task still fails this long after the cancel request is terminated (MCP_STUCK_CANCEL_GRACE_MS, default 60000)',
    )
    .option('--strict-headers', 'refuse requests without Mcp-Method/Mcp-Name (MCP_STRICT_HEADERS=true; default: take them from the body)')
    .addOption(
      new Option(
        '--lenient-headers',
        'take a missing Mcp-Method/Mcp-Name from the body (the default; overrides MCP_STRICT_HEADERS=true)',
      ).hideHelp(),
    )
    .option('--no-task-handles', 'callers without Tasks get -32021 / wait unboundedly, as before handles (MCP_TASK_HANDLES=false)')
    .option(
      '--handle-wait-ms <ms>',
      'how long a call without Tasks waits before answering a task handle (MCP_HANDLE_WAIT_MS, default 20000)',
    )
    .option('--progress-wait-ms <ms>', 'the same for a call that asked for progress notifications (MCP_PROGRESS_WAIT_MS, default 300000)')
    .option(
      '--answer-within-ms <ms>',
      'input requests unanswered this long end their task failed, its undos run (MCP_ANSWER_WITHIN_MS, default: the task ttl, 0: no limit)',
    )
    .option(
      '--anonymous-answer-within-ms <ms>',
      'the same for tasks of callers without authentication (MCP_ANONYMOUS_ANSWER_WITHIN_MS, default 3600000, when shorter; 0: as --answer-within-ms)',
    )
    .option(
      '--retry-grace-ms <ms>',
      'a call without Tasks dropped before its answer keeps its task this long; an identical retry attaches to it (MCP_RETRY_GRACE_MS, default 600000, 0: off)',
    )
    .option('--task-tools-prefix <prefix>', 'name prefix of the task_wait/respond/cancel/list tools (MCP_TASK_TOOLS_PREFIX, default task_)')
    .option('--no-watch-polled-tasks', 'read every tasks/get from Temporal instead of watching polled tasks (MCP_WATCH_POLLED_TASKS=false)')
    .option('--required-tools-need-tasks', 'keep -32021 for `required` tools called without Tasks (MCP_REQUIRED_TOOLS_NEED_TASKS=true)')
    .option('--temporal-ui-url <url>', "the Temporal Web UI's address, linked from the task card (MCP_TEMPORAL_UI_URL; dev: its own UI)")
    .option('--no-metrics', 'record and serve no Prometheus metrics (MCP_METRICS=false; default: GET /metrics beside /healthz)')
    .option('--metrics-port <port>', 'serve GET /metrics on this port instead of the MCP port, 0 picks a free one (MCP_METRICS_PORT)')
    .option('--metrics-host <host>', 'address the metrics port binds to (MCP_METRICS_HOST, default 127.0.0.1)')
    .option('--allowed-host <host...>', 'extra Host names accepted (DNS rebinding protection)')
    .option('--allowed-origin <hostname...>', 'extra Origin hostnames accepted (no scheme or port), e.g. app.example.com')
    .option('--auth-tokens-file <file>', 'require bearer tokens: "principal:token" per line (or MCP_AUTH_TOKENS="p:t,p2:t2")')
    .addOption(toolsModuleOption())
    .addOption(toolsFileOption());
  return addOAuthOptions(cmd);
}

/** `serve`/`dev`: workflows of any SDK as tools, from a JSON tools file (alongside --tools-module). */
export function toolsFileOption(): Option {
  return new Option('--tools <file>', 'JSON tools file: workflows of any SDK, started by type name on their task queue (MCP_TOOLS_FILE)');
}

export function toolsModuleOption(): Option {
  return new Option('--tools-module <file>', 'module exporting `tools` (and workflowsPath, activities for the worker) (MCP_TOOLS_MODULE)');
}

export function configFrom(opts: Record<string, unknown>): ServerConfig {
  return parseServerConfig({
    host: opts.host,
    port: opts.port,
    taskQueue: opts.taskQueue,
    ttlMs: opts.ttlMs,
    pollIntervalMs: opts.pollIntervalMs,
    temporalTimeoutMs: opts.temporalTimeoutMs,
    historyLimit: opts.historyLimit,
    maxSubscribedTasks: opts.maxSubscribedTasks,
    maxSubscribedTasksPerCaller: opts.maxSubscribedTasksPerCaller,
    maxJsonDepth: opts.maxJsonDepth,
    maxConnections: opts.maxConnections,
    requestTimeoutMs: opts.requestTimeoutMs,
    maxRunningTasksPerCaller: opts.maxRunningTasksPerCaller,
    maxRunningTasks: opts.maxRunningTasks,
    quotaLagMs: opts.quotaLagMs,
    syncRunTimeoutMs: opts.syncRunTimeoutMs,
    stuckCancelGraceMs: opts.stuckCancelGraceMs,
    answerWithinMs: opts.answerWithinMs,
    anonymousAnswerWithinMs: opts.anonymousAnswerWithinMs,
    strictHeaders: opts.strictHeaders ? true : opts.lenientHeaders ? false : undefined,
    // commander defaults a --no-x flag to true: only an explicit --no-task-handles overrides the environment
    taskHandles: opts.taskHandles === false ? false : undefined,
    handleWaitMs: opts.handleWaitMs,
    progressWaitMs: opts.progressWaitMs,
    retryGraceMs: opts.retryGraceMs,
    taskToolsPrefix: opts.taskToolsPrefix,
    requiredToolsNeedTasks: opts.requiredToolsNeedTasks ? true : undefined,
    temporalUiUrl: opts.temporalUiUrl,
    watchPolledTasks: opts.watchPolledTasks === false ? false : undefined,
    metrics: opts.metrics === false ? false : undefined,
    metricsPort: opts.metricsPort,
    metricsHost: opts.metricsHost,
    allowedHosts: opts.allowedHost,
    allowedOrigins: opts.allowedOrigin,
    oauth: oauthFlags(opts),
  });
}

/** Bearer tokens from --auth-tokens-file or MCP_AUTH_TOKENS; none means no authentication. */
export function tokenVerifierFrom(opts: Record<string, unknown>): StaticTokenVerifier | undefined {
  if (typeof opts.authTokensFile === 'string') return StaticTokenVerifier.fromFile(opts.authTokensFile);
  const { authTokens } = parseCliSettings(opts);
  return authTokens ? StaticTokenVerifier.parse(authTokens, 'MCP_AUTH_TOKENS') : undefined;
}

/** `serve`/`dev`: the tools module and/or tools file, from flags or MCP_TOOLS_MODULE / MCP_TOOLS_FILE. */
export function servedTools(opts: Record<string, unknown>): ReturnType<typeof loadServedTools> {
  const { toolsModule, tools } = parseCliSettings(opts);
  return loadServedTools(toolsModule, tools);
}
