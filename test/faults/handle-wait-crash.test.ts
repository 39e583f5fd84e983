/** A client without Tasks follows a handle; the replica serving its open task_wait is SIGKILLed. */
import { call, startServe, startWorker } from '../support/mcp';
import { stopAllAfter } from '../support/processes';
import { startTestTemporal, TestTemporal } from '../support/temporal';
import { ledgerDir, report } from './support';

let temporal: TestTemporal;
stopAllAfter(() => temporal);

const PLAIN = { capabilities: {} }; // no Tasks extension declared
const BOUND = ['--handle-wait-ms', '5000'];

test('task_wait open on a replica that is SIGKILLed: task_wait again on another replica, the task completes', async () => {
  temporal = await startTestTemporal();
  await startWorker(temporal.address, { MCP_TASKS_LEDGER_DIR: ledgerDir() });
  const [first, second] = await Promise.all([startServe(temporal.address, BOUND), startServe(temporal.address, BOUND)]);

  const handle = await call(
    first.url,
    'tools/call',
    { name: 'provision_environment', arguments: { name: 'crash', steps: 4, stepMs: 2000 } },
    PLAIN,
  );
  expect(handle.structuredContent.status).toBe('working');
  const { taskId } = handle.structuredContent;

  // a wait is open on the first replica when it dies
  const open = call(first.url, 'tools/call', { name: 'task_wait', arguments: { taskId } }, PLAIN).then(
    () => 'answered',
    () => 'cut',
  );
  await new Promise((r) => setTimeout(r, 500));
  first.proc.child.kill('SIGKILL');
  await first.proc.stop();
  expect(await open).toBe('cut');

  let result = await call(second.url, 'tools/call', { name: 'task_wait', arguments: { taskId } }, PLAIN);
  for (let i = 0; i < 20 && ['working', 'input_required'].includes(result.structuredContent?.status); i++) {
    result = await call(second.url, 'tools/call', { name: 'task_wait', arguments: { taskId } }, PLAIN);
  }
  expect(result.isError).toBeFalsy();
  expect(result.content[0].text).toBe('Environment crash provisioned in 4 steps.');
  report('handle wait crash', { started: 1, completed: 1, lost: 0 });
});
