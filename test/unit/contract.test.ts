/** The activity progress contract: how any language's heartbeat reads on the wire; the other languages' helpers spell its names. */
import fs from 'node:fs';
import path from 'node:path';
import {
  ACTIVITY_PROGRESS_KEY,
  activityProgressOf,
  activityProgressText,
  claimedSignal,
  CONTRACT_VERSION,
  inputResponsesSignal,
  MCP_PROTOCOL_ERROR,
  MCP_TASK_STATUS,
  MCP_TASK_UNCLAIMED,
  PROGRESS_MEMO_KEY,
  TASK_MEMO_KEY,
  taskProgressQuery,
} from '../../src/contract';

test('the progress reads "message (done of total)" on the wire, whatever language wrote it', () => {
  expect(activityProgressText({ message: 'exporting rows', done: 4000, total: 10_000 })).toBe('exporting rows (4,000 of 10,000)');
  expect(activityProgressText({ message: 'copied', done: 12 })).toBe('copied (12)');
  expect(activityProgressText({ message: 'warming up' })).toBe('warming up');
  // what Python's json or Go's encoding/json write: extra keys kept out, bad counts dropped
  expect(activityProgressOf({ mcpProgress: { message: 'm', done: 1.5, total: 'x' }, checkpoint: 7 })).toEqual({ message: 'm', done: 1.5 });
  expect(activityProgressOf({ mcpProgress: { done: 1 } })).toBeUndefined();
  expect(activityProgressOf(42)).toBeUndefined();
  expect(activityProgressOf(null)).toBeUndefined();
});

test.each([
  ['Go', ['examples/go/mcptasks/contract.go'], /ContractVersion\s*=\s*(\d+)/],
  ['Java', ['examples/java/src/main/java/mcptasks/Contract.java'], /int VERSION = (\d+);/],
  [
    'Python',
    ['mcp_tasks.py', 'mcp_activity.py', 'mcp_failures.py', 'claim_guard.py'].map((file) => `examples/python/${file}`),
    /CONTRACT_VERSION = (\d+)/,
  ],
])('the %s helper spells the contract names as src/contract.ts does', (_language, files, version) => {
  const source = files.map((file) => fs.readFileSync(path.resolve(__dirname, '..', '..', file), 'utf8')).join('\n');
  const names = [TASK_MEMO_KEY, PROGRESS_MEMO_KEY, inputResponsesSignal.name, taskProgressQuery.name, ACTIVITY_PROGRESS_KEY];
  const failures = [MCP_PROTOCOL_ERROR, MCP_TASK_UNCLAIMED];
  for (const name of [...names, claimedSignal.name, ...failures, MCP_TASK_STATUS.name]) expect(source).toContain(`"${name}"`);
  expect(Number(source.match(version)?.[1])).toBe(CONTRACT_VERSION);
});
