/**
 * A caller's tasks, a page at a time (2025-11-25 tasks/list, task_list): found by the McpOwner
 * search attribute, so no call scans the namespace; each read like tasks/get.
 */
import type { Client } from '@temporalio/client';
import { MCP_OWNER, MCP_TASK_STATUS } from '../../contract';
import { logger } from '../logging';
import type { Bounded, OwnerHasher } from '../store-parts';
import type { TaskSnapshot } from '../task-snapshot';

/** A tasks/list cursor this server did not hand out. */
export class InvalidCursorError extends Error {
  constructor() {
    super('Invalid cursor');
  }
}

/** One page of a caller's tasks. */
export interface TaskPage {
  tasks: TaskSnapshot[];
  nextCursor?: string;
}

const GRPC_INVALID_ARGUMENT = 3;

export class OwnedTasks {
  constructor(
    private readonly client: Client,
    private readonly owners: OwnerHasher,
    private readonly bounded: Bounded,
    private readonly read: (taskId: string, principal: string) => Promise<TaskSnapshot | undefined>,
  ) {}

  /**
   * One page of the caller's tasks, found by the McpOwner search attribute (the owner's keyed
   * hash). Visibility lags by a second or so; each task is then read like tasks/get, so expired
   * ones are left out.
   */
  async page(principal: string, cursor: string | undefined, pageSize: number): Promise<TaskPage> {
    // a continue-as-new chain is one task: its closed runs are left out, the latest run stays
    return this.query(principal, `ExecutionStatus != "ContinuedAsNew"`, cursor, pageSize);
  }

  /**
   * The caller's running tasks that wait for input (McpTaskStatus, which the runtime keeps
   * current), newest first, at most `limit`: each read like tasks/get, so one answered since is
   * left out. Visibility lags by a second or so.
   */
  async waiting(principal: string, limit: number): Promise<TaskSnapshot[]> {
    const page = await this.query(
      principal,
      `${MCP_TASK_STATUS.name} = "input_required" AND ExecutionStatus = "Running"`,
      undefined,
      limit,
    );
    return page.tasks.filter((t) => t.state.status === 'input_required');
  }

  private async query(principal: string, where: string, cursor: string | undefined, pageSize: number): Promise<TaskPage> {
    const nextPageToken = cursor === undefined ? undefined : this.decodeCursor(cursor, principal);
    const page = await this.bounded(() =>
      this.client.workflowService.listWorkflowExecutions({
        namespace: this.client.options.namespace,
        pageSize,
        nextPageToken,
        query: `${MCP_OWNER.name} = "${this.owners.hash(principal)}" AND ${where}`,
      }),
    ).catch((err: { code?: number }) => {
      if (err.code === GRPC_INVALID_ARGUMENT && cursor !== undefined) throw new InvalidCursorError();
      throw err;
    });
    const ids = (page.executions ?? []).map((e) => e.execution?.workflowId).filter((id): id is string => !!id);
    // one task that cannot be read (e.g. a payload this server cannot decode) is left out, not the page
    let failures = 0;
    const read = await Promise.all(
      ids.map((id) =>
        this.read(id, principal).catch((err: Error) => {
          failures++;
          logger.warn(
            { event: 'tasks.list.unreadable', taskId: id, err: err.message },
            'a task on a tasks/list page could not be read: left out',
          );
          if (failures === ids.length) throw err; // every one failed: Temporal itself, most likely
          return undefined;
        }),
      ),
    );
    const tasks = read.filter((t): t is TaskSnapshot => t !== undefined);
    const token = page.nextPageToken;
    return { tasks, ...(token && token.length > 0 ? { nextCursor: this.encodeCursor(Buffer.from(token), principal) } : {}) };
  }

  /**
   * A cursor is Temporal's page token with a MAC over it and the caller (keyed like owners):
   * a cursor that is not ours, or another caller's, is refused at once instead of going to
   * Temporal, which waits out its deadline on a token it cannot read.
   */
  private encodeCursor(token: Buffer, principal: string): string {
    return `${token.toString('base64url')}.${this.owners.mac(Buffer.concat([Buffer.from(`${principal}\0`), token]))}`;
  }

  private decodeCursor(cursor: string, principal: string): Uint8Array {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
    if (!m) throw new InvalidCursorError();
    const token = Buffer.from(m[1], 'base64url');
    if (!this.owners.verifyMac(Buffer.concat([Buffer.from(`${principal}\0`), token]), m[2])) throw new InvalidCursorError();
    return token;
  }
}
