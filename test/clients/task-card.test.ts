/**
 * The task card end to end in headless Chromium: a host page of the test's own (ext-apps'
 * AppBridge on the MCP SDK's Client, test/clients/card-host/host.ts) calls tools as a model
 * would and renders each result's card; the server and worker are real, on the run's Temporal.
 */
import esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { ledgerDir, ledgerMarkers } from '../support/ledger';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';
import { waitFor } from '../support/wait';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const HOST = 'http://card-host.test';
const ledger = ledgerDir();
const stack = useStack({ noServer: true, workerEnv: { MCP_TASKS_LEDGER_DIR: ledger } });

// CI installs Chromium and must run this; elsewhere a missing browser skips it, loudly.
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium && !process.env.CI)
  console.warn(`[task-card] skipped: Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const cardTest = haveChromium || process.env.CI ? test : test.skip;

let browser: Browser;
let page: Page;
let url: string;
/** The tool results the host got, by card. */
const results: Record<string, Promise<any>> = {};
/** Calls a tool from the host page and renders its card in slot `slot`. */
const failed: Record<string, Error> = {};
let show: (slot: string, name: string, args: Record<string, unknown>) => Promise<any>;

beforeAll(async () => {
  if (!haveChromium && !process.env.CI) return;
  // short bounded waits: the card's task_wait answers often enough to watch progress
  ({ url } = await stack.serve({ config: { handleWaitMs: 1_000, temporalUiUrl: stack.temporal.server.uiUrl } }));
  const script = await esbuild.build({
    entryPoints: [path.join(__dirname, 'card-host', 'host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    logLevel: 'warning',
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.exposeFunction('relayFetch', relay);
  await page.route(`${HOST}/**`, (route) =>
    route.request().url().endsWith('/host.js')
      ? route.fulfill({ contentType: 'text/javascript', body: script.outputFiles[0].text })
      : route.fulfill({ contentType: 'text/html', body: HOST_PAGE }),
  );
  await page.goto(`${HOST}/`);
  show = (slot, name, args) => {
    results[slot] = page.evaluate(([u, n, a, s]) => window.cardHost.call(u, n, a, s), [url, name, args, slot] as const);
    results[slot].catch(() => undefined); // awaited by the tests that need it; its failure shows in its card's test
    return results[slot];
  };
  show('export', 'export_report', { rows: 12_000, msPerChunk: 1500 });
  show('approval', 'approve_expense', { amount: 42, description: 'team dinner' });
  show('provision', 'provision_environment', { name: 'card-env', steps: 6, stepMs: 15_000 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const HOST_PAGE = `<!doctype html><html><head><style>
  body { font: 14px system-ui; margin: 16px; background: #f6f6f4; }
  #cards { display: inline-grid; grid-template-columns: repeat(3, 400px); gap: 16px; align-items: start; }
  iframe { width: 400px; height: 260px; border: 0; background: white; border-radius: 10px; }
</style></head><body><div id="cards"></div><script src="${HOST}/host.js"></script></body></html>`;

/** The page's fetch, made by node: every byte of MCP as the page sent and received it. */
async function relay(target: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  const response = await fetch(target, init);
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.text() };
}

async function card(slot: string): Promise<Frame> {
  // a call that failed before its card showed fails the test with its own error
  void results[slot]?.catch((err: Error) => (failed[slot] = err));
  return waitFor(
    async () => {
      if (failed[slot]) throw failed[slot];
      return (await (await page.$(`#frame-${slot}`))?.contentFrame()) ?? undefined;
    },
    30_000,
    250,
    `no card ${slot}`,
  );
}

const statusOf = (frame: Frame) => frame.locator('#card').getAttribute('data-status');

async function untilStatus(frame: Frame, status: string, timeoutMs = 60_000): Promise<void> {
  const reached = await waitFor(async () => ((await statusOf(frame)) === status ? true : undefined), timeoutMs, 200).catch(() => false);
  if (!reached) throw new Error(`the card never showed ${status}; it shows:\n${await frame.locator('#card').innerText()}`);
}

cardTest(
  'the card shows the tool, its status and a progress bar that moves until the result',
  async () => {
    const frame = await card('export');
    await frame.locator('.tool', { hasText: 'export_report' }).waitFor({ timeout: 30_000 });
    const seen: number[] = [];
    await waitFor(
      async () => {
        const value = await frame.$eval('#progress', (p) => (p as HTMLProgressElement).value).catch(() => undefined);
        if (value !== undefined && value !== seen.at(-1)) seen.push(value);
        return seen.length >= 3 ? true : undefined;
      },
      60_000,
      100,
      'the progress bar did not move',
    );
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(await frame.$eval('#progress', (p) => (p as HTMLProgressElement).max)).toBe(12_000);
    // all three cards live (progress, a question, a provision under way): the README's picture
    await (await card('approval')).locator('form.question').waitFor({ timeout: 30_000 });
    await (await card('provision')).locator('#progress').waitFor({ timeout: 30_000 });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#cards').screenshot({ path: path.join(ARTIFACTS, 'task-card.png') });
    await untilStatus(frame, 'completed');
    expect(await frame.locator('pre.result').innerText()).toContain('12000,item-12000');
  },
  120_000,
);

cardTest(
  'the pending question is a form from its schema; submitting it completes the task',
  async () => {
    const frame = await card('approval');
    await untilStatus(frame, 'input_required');
    const form = frame.locator('form.question');
    await expect(form.locator('.message').innerText()).resolves.toBe('Approve the expense of 42 for "team dinner"?');
    await form.getByLabel('Approved').check();
    await form.getByLabel('Comment').fill('enjoy');
    await form.getByRole('button', { name: 'Submit' }).click();
    await untilStatus(frame, 'completed');
    expect(await frame.locator('pre.result').innerText()).toContain('Expense of 42 for "team dinner" was approved. Comment: enjoy');
    await expect(frame.locator('form.question').count()).resolves.toBe(0);
    expect((await results.approval).structuredContent).toMatchObject({ tool: 'approve_expense', status: 'input_required' });
  },
  120_000,
);

cardTest(
  'declining the question from its form ends the task with the tool saying so',
  async () => {
    void show('decline', 'approve_expense', { amount: 7, description: 'taxi' });
    const frame = await card('decline');
    await untilStatus(frame, 'input_required');
    await frame.getByRole('button', { name: 'Decline' }).click();
    await untilStatus(frame, 'error'); // approve_expense answers a decline with an isError result
    expect(await frame.locator('pre.result').innerText()).toContain('Expense of 7 not approved: the request was declined.');
  },
  120_000,
);

cardTest(
  'the cancel button cancels the task: it ends cancelled and the ledger shows its steps undone',
  async () => {
    const frame = await card('provision');
    await frame.locator('.status-message', { hasText: /step [2-6]\/6/ }).waitFor({ timeout: 60_000 });
    const taskId = (await frame.locator('.task-id').innerText()).trim();
    await frame.getByRole('button', { name: 'Cancel task' }).click();
    await untilStatus(frame, 'cancelled');
    expect(await frame.locator('pre.result').innerText()).toContain('was cancelled');
    const provisioned = ledgerMarkers(ledger, 'provision', taskId);
    expect(provisioned.size).toBeGreaterThanOrEqual(1);
    expect(provisioned.size).toBeLessThan(6);
    expect(ledgerMarkers(ledger, 'deprovision', taskId)).toEqual(provisioned);
  },
  120_000,
);

cardTest('the Temporal UI link names the task and opens through the host', async () => {
  const frame = await card('provision');
  const taskId = (await frame.locator('.task-id').innerText()).trim();
  await frame.getByRole('link', { name: 'Open in Temporal UI' }).click();
  const opened = await waitFor(async () => (await page.evaluate(() => window.openedLinks)).at(-1), 10_000, 100, 'no link opened');
  expect(opened).toBe(`${stack.temporal.server.uiUrl}/namespaces/default/workflows/${taskId}`);
});
