/**
 * Every run of a recorded workflow as Temporal's proto JSON (what the Temporal UI and `temporal
 * workflow show -o json` give, and what the SDKs' JSON history readers take), for the recording
 * scripts. historyToJSON itself is not used: in this install @temporalio/common and
 * @temporalio/proto each carry their own copy of protobufjs 8, so its `instanceof Type` check
 * fails ("type must be a Type"); the same protojson from the copy that @temporalio/proto uses
 * works, whichever way npm lays the copies out.
 */
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';
// the module object itself (protobufjs' root), not a namespace copy of its keys
// eslint-disable-next-line @typescript-eslint/no-require-imports -- protobufjs' root object, not a namespace copy
import proto = require('@temporalio/proto');

export interface Run {
  runId: string;
  /** The run's history, proto JSON. */
  json: string;
}

/**
 * Every run of the workflow, oldest first, once closed: the latest run, then back along
 * continuedExecutionRunId (continue-as-new keeps the workflow id).
 */
export async function closedRuns(client: Client, workflowId: string): Promise<Run[]> {
  await client.workflow
    .getHandle(workflowId)
    .result()
    .catch(() => undefined); // closed, however it ended
  return allRuns(client, workflowId);
}

/** Every run so far, oldest first (also of a workflow still running). */
export async function allRuns(client: Client, workflowId: string): Promise<Run[]> {
  const runs: Run[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.unshift({
      runId,
      json: JSON.stringify(protoJson.toJson(HISTORY_TYPE, proto.temporal.api.history.v1.History.fromObject(history))),
    });
    runId = history.events?.[0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

/** protobufjs's protojson from the copy @temporalio/proto uses, and the History type of that copy. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protoJson = require(
  require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto/package.json'))] }),
) as {
  toJson(type: unknown, message: unknown): unknown;
};
const HISTORY_TYPE = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);
