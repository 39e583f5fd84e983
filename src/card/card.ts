/**
 * The task card: an MCP App (ext-apps' App class) that shows a task a tool call returned and
 * follows it through the host bridge only (tools/call of the task tools; no network of its own).
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { type Answer } from './schema-form';
import { type CardState, isRunning, readResult } from './task-state';
import { render } from './view';

/** What the server writes into the card when it serves it (see src/mcp/task-card.ts). */
export interface CardConfig {
  wait: string;
  respond: string;
  cancel: string;
  /** The Temporal UI's workflow page of a task is this plus its taskId; absent when not configured. */
  workflowUrl?: string;
}

/** Each wait returns after this at most (at once on an end or a question), so the bar moves while the task works. */
const FOLLOW_WAIT_MS = 2_000;
/** A task waiting for an answer is looked at again this often (someone else may answer it). */
const INPUT_RECHECK_MS = 3_000;
/** After a failed call, the next one waits this long; this many failures in a row stop following. */
const RETRY_MS = 3_000;
const MAX_FAILURES = 5;

const config = JSON.parse(document.getElementById('card-config')?.textContent ?? '{}') as CardConfig;
const app = new App({ name: 'mcp-temporal-tasks task card', version: '1' });
let state: CardState = { status: 'starting', questions: [] };
let following = false;
let torndown = false;
let issued = 0;
let applied = 0;
let notice = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls a task tool; a result is shown only when no later-issued call's result was shown already. */
async function call(name: string, args: Record<string, unknown>): Promise<void> {
  const seq = ++issued;
  const result = await app.callServerTool({ name, arguments: args });
  if (seq < applied) return;
  applied = seq;
  show(readResult(result, state));
}

function show(next: CardState, message = ''): void {
  state = next;
  notice = message;
  render(document.getElementById('card')!, state, { notice, workflowUrl: config.workflowUrl, answer, cancel, openLink });
  if (isRunning(state) && state.taskId) void follow();
}

/** One loop per card: bounded waits (task_wait) until the task ends. */
async function follow(): Promise<void> {
  if (following) return;
  following = true;
  let failures = 0;
  while (isRunning(state) && !torndown && failures < MAX_FAILURES) {
    if (state.status === 'input_required') await sleep(INPUT_RECHECK_MS);
    try {
      await call(config.wait, { taskId: state.taskId, waitMs: FOLLOW_WAIT_MS });
      failures = 0;
    } catch (err) {
      failures++;
      notice = `${config.wait} failed: ${(err as Error).message}${failures < MAX_FAILURES ? '; trying again' : '; stopped following'}`;
      show(state, notice);
      await sleep(RETRY_MS);
    }
  }
  following = false;
}

function answer(key: string, a: Answer): void {
  call(config.respond, { taskId: state.taskId, responses: { [key]: a } }).catch((err: Error) => show(state, `not sent: ${err.message}`));
}

function cancel(): void {
  call(config.cancel, { taskId: state.taskId }).catch((err: Error) => show(state, `not cancelled: ${err.message}`));
}

function openLink(url: string): void {
  app.openLink({ url }).catch((err: Error) => show(state, `the host did not open the link: ${err.message}`));
}

app.ontoolresult = (result) => show(readResult(result, state));
app.ontoolinput = () => show(state, 'running…');
app.onteardown = async () => {
  torndown = true;
  return {};
};
show(state);
app.connect().then(
  () => {
    const tool = app.getHostContext()?.toolInfo?.tool.name;
    const taskTool = [config.wait, config.respond, config.cancel].includes(tool ?? '');
    if (tool && !taskTool && !state.tool) show({ ...state, tool });
  },
  (err: Error) => show(state, `no host bridge: ${err.message}`),
);
