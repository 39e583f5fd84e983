/** The task card resource (src/mcp/task-card.ts): its page with the server's settings, and a card that was never built. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CardNotBuiltError, TASK_CARD_URI, TaskCard } from '../../../src/mcp/task-card';
import { taskToolNames } from '../../../src/mcp/task-handles/handle-text';

const built = (html: string) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-card-')), 'task-card.html');
  fs.writeFileSync(file, html);
  return file;
};
const PAGE = '<script type="application/json" id="card-config">__CARD_CONFIG__</script>';
const configOf = (html: string) => JSON.parse(/>(.*)<\/script>/.exec(html)![1]);

test("the page carries the task tools' names and the Temporal UI's workflow address of the namespace", () => {
  const card = new TaskCard({ temporalUiUrl: 'http://ui.example:8233/' }, taskToolNames('t_'), 'prod', built(PAGE));
  expect(configOf(card.page())).toEqual({
    wait: 't_wait',
    respond: 't_respond',
    cancel: 't_cancel',
    workflowUrl: 'http://ui.example:8233/namespaces/prod/workflows/',
  });
});

test('without a Temporal UI address the page has no link', () => {
  expect(configOf(new TaskCard({}, taskToolNames('task_'), 'default', built(PAGE)).page()).workflowUrl).toBeUndefined();
});

test('settings cannot end the script element they are written into', () => {
  const html = new TaskCard({ temporalUiUrl: 'http://ui/</script><b>' }, taskToolNames('task_'), 'default', built(PAGE)).page();
  expect(html.match(/<\/script>/g)).toHaveLength(1);
  expect(configOf(html).workflowUrl).toBe('http://ui/</script><b>/namespaces/default/workflows/');
});

test("the resource is the extension's HTML profile, at the card's ui:// address", () => {
  const [content] = new TaskCard({}, taskToolNames('task_'), 'default', built(PAGE)).read().contents;
  expect(content).toMatchObject({ uri: TASK_CARD_URI, mimeType: 'text/html;profile=mcp-app' });
});

test('a card that was never built is a clear error naming the file and the fix', () => {
  const missing = path.join(os.tmpdir(), 'mtt-no-such-dir', 'task-card.html');
  const card = new TaskCard({}, taskToolNames('task_'), 'default', missing);
  expect(() => card.page()).toThrow(CardNotBuiltError);
  expect(() => card.page()).toThrow(`the task card is not built (${missing} is missing): run npm run build`);
});
