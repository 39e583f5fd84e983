export interface TaskStoreOptions {
  taskQueue: string;
  /** How long a task stays readable after createdAt (already capped by the namespace retention). */
  ttlMs: number;
  /** Bound on every Temporal call, so an unreachable server gives an error, not a hang. */
  temporalTimeoutMs: number;
  /** History length after which long tools continue as new. */
  historyLimit: number;
  /** Whether McpTool / McpTaskStatus / McpOwner are registered in the namespace. */
  searchAttributes: boolean;
  /** Key of the owner hash (MCP_OWNER_KEY); shared by every replica. */
  ownerKey?: string;
  /** Caps on running tasks, counted in Temporal (needs the search attributes); absent or 0: none. */
  maxRunningTasksPerCaller?: number;
  maxRunningTasks?: number;
  quotaLagMs?: number;
  /** Execution timeout of a synchronous run (run()): its caller holds no handle, so nobody could reach it after a crash. */
  syncRunTimeoutMs?: number;
  /** How long a stuck task is given after its cancel request to run its undos before it is terminated (default 60 s). */
  stuckCancelGraceMs?: number;
  /** Input requests unanswered this long end the task failed (TaskMemo.answerWithinMs); default ttlMs; 0: no limit. */
  answerWithinMs?: number;
  /** The same for anonymous callers, when shorter; 0: no limit of its own. */
  anonymousAnswerWithinMs?: number;
}

/** What the namespace says (retention cap, search attributes), once it could be read. */
export type NamespaceFacts = Pick<TaskStoreOptions, 'ttlMs' | 'searchAttributes'>;
