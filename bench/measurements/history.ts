/**
 * Events and workflow tasks per task, counted from real histories fetched from the dev server
 * after the work ran (exact counts, not timings): what a task costs Temporal in writes and in
 * worker round trips. Used by bench:raw (ours vs the raw plainTimer) and bench:peer (ours,
 * mcp-agent and raw).
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { forEachBounded } from '../measure';
import { markdownTable, mean } from '../stats';

/** The event's type as a short name (WorkflowExecutionStarted, TimerFired, ...). */
export const eventName = (e: temporal.api.history.v1.IHistoryEvent): string =>
  Object.keys(e)
    .find((k) => k.endsWith('EventAttributes'))
    ?.replace(/EventAttributes$/, '')
    .replace(/^./, (c) => c.toUpperCase()) ?? String(e.eventType);

/**
 * Mean events, workflow tasks (WorkflowTaskCompleted events) and history bytes per history of
 * these closed workflows, and the event sequence of the first one.
 */
export interface HistoryCounts {
  n: number;
  events: number;
  workflowTasks: number;
  historyBytes: number;
  sequence: string[];
}

export async function historyCounts(client: Client, ids: string[]): Promise<HistoryCounts> {
  const per: Array<{ id: string; events: number; workflowTasks: number; bytes: number; sequence: string[] }> = [];
  await forEachBounded(ids, 8, async (id) => {
    const handle = client.workflow.getHandle(id);
    const events = (await handle.fetchHistory()).events ?? [];
    const described = await handle.describe();
    per.push({
      id,
      events: events.length,
      workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
      bytes: Number(described.raw.workflowExecutionInfo?.historySizeBytes ?? NaN),
      sequence: events.map(eventName),
    });
  });
  per.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
  return {
    n: per.length,
    events: mean(per.map((p) => p.events)),
    workflowTasks: mean(per.map((p) => p.workflowTasks)),
    historyBytes: mean(per.map((p) => p.bytes)),
    sequence: per[0]?.sequence ?? [],
  };
}

/** Resolves once every workflow has closed (result() long polls; a failure counts as closed). */
export async function awaitClosed(client: Client, ids: string[], timeoutMs = 60_000): Promise<void> {
  await forEachBounded(ids, 32, (id) => client.withDeadline(Date.now() + timeoutMs, () => client.workflow.getHandle(id).result()));
}

/**
 * One table: per kind of work (rows), per stack (columns) events, workflow tasks and history bytes
 * per task; then one history's event sequence per cell. counts = { [work]: { [stack]: historyCounts } }.
 */
export function renderHistory(
  counts: Record<string, Record<string, HistoryCounts | undefined>>,
  { works, stacks }: { works: Record<string, string>; stacks: Record<string, string> },
): string {
  const rows = Object.entries(works).map(([work, label]) => [
    label,
    ...Object.keys(stacks).flatMap((k): Array<number | string> => {
      const c = counts[work]?.[k];
      return c ? [c.events, c.workflowTasks, c.historyBytes] : ['–', '–', '–'];
    }),
  ]);
  const header = [
    'work (each task completed)',
    ...Object.values(stacks).flatMap((name) => [`${name}: events`, `${name}: workflow tasks`, `${name}: history bytes`]),
  ];
  const sequences = Object.entries(works).flatMap(([work, label]) =>
    Object.entries(stacks)
      .filter(([k]) => counts[work]?.[k])
      .map(([k, name]) => `- ${label}, ${name} (n=${counts[work][k]!.n}): ${counts[work][k]!.sequence.join(' → ')}`),
  );
  return [markdownTable(header, rows), '', 'One history of each:', ...sequences].join('\n');
}
