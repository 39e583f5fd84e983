/** What scripts/record-helper-histories.ts reads of a recorded history, and the index it writes beside them. */
import fs from 'node:fs';
import path from 'node:path';
import type { Lang } from './helper-history-scenarios';

const CLAIM_GUARD = 'mcp-tasks.claim-guard';

export type Event = {
  eventType: string;
  markerRecordedEventAttributes?: { details?: Record<string, { payloads?: Array<{ data?: string }> }> };
};

/** The run has the claim guard's version marker (its change id is in the marker's details). */
export const guarded = (events: Event[]) =>
  events.some((e) =>
    Object.values(e.markerRecordedEventAttributes?.details ?? {}).some((d) =>
      d.payloads?.some((p) =>
        Buffer.from(p.data ?? '', 'base64')
          .toString()
          .includes(CLAIM_GUARD),
      ),
    ),
  );

/** How the run closed: completed, canceled, failed, continuedasnew… */
export const closing = (events: Event[]) => events.at(-1)!.eventType.replace('EVENT_TYPE_WORKFLOW_EXECUTION_', '').toLowerCase();

const REPLAYED_BY: Record<Lang, { test: string; version: string; more: string }> = {
  go: {
    test: "`../../replay_test.go` (`go test ./...` in examples/go) with the SDK's WorkflowReplayer and the workflows of `examples/go/tools` as the worker registers them",
    version: '`workflow.GetVersion`',
    more: '',
  },
  java: {
    test: "`src/test/java/mcptasks/ReplayTest.java` (`mvn test` in examples/java) with the SDK's WorkflowReplayer and the example workflow implementations",
    version: '`Workflow.getVersion`',
    more: ' (ReplayTest then replays it under a default workflow id, unless a `workflowId` key is added)',
  },
};

/** The folder's index: every history in it, recorded now or kept from before. */
export function helperReadme(lang: Lang, out: string): string {
  const lines = fs
    .readdirSync(out)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const r = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
      const events: Event[] = r.events ?? [];
      const about = `${r.scenario ?? 'a history added by hand'}${r.run ? ` (run ${r.run})` : ''}`;
      return `- \`${file}\`: ${about}; ${events.length} events, ${closing(events)}${guarded(events) ? ', claim guard on' : ''}${r.recordedAt ? `; recorded ${r.recordedAt}` : ''}`;
    });
  const { test, version, more } = REPLAYED_BY[lang];
  return `# Recorded histories of the ${lang === 'go' ? 'Go' : 'Java'} example tools

Replayed by ${test}: a change to the mcptasks helper or a tool that alters the command sequence of
a recorded run fails there with a nondeterminism error. Such a change goes behind ${version}, and
these files stay: they are the runs in flight when it ships. \`.v0\` is the helper before the
claim guard, \`.v1\` with it.

\`npm run record-helper-histories -- --lang ${lang} --as v<N> [--helper <examples/${lang} of a worktree>]\`
records them (see its header); a history from \`temporal workflow show --workflow-id <id> --output json\`
can be dropped in as is${more}.

${lines.join('\n')}
`;
}
