/** The Temporal Web UI shows a task: its workflow, type, status and summary (headless Chromium). */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { call, pollTask } from '../support/mcp';
import { ROOT } from '../support/processes';
import { useStack } from '../support/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const stack = useStack();

/** Waits until the page or one of its frames shows text matching `pattern`. */
async function waitForText(page: Page, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const text = await frame
        .locator('body')
        .innerText({ timeout: 1000 })
        .catch(() => '');
      if (pattern.test(text)) return;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`the page never showed ${pattern}`);
}

// CI installs Chromium and must run this; elsewhere a missing browser skips it, loudly.
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium && !process.env.CI)
  console.warn(`[ui] skipped: Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const uiTest = haveChromium || process.env.CI ? test : test.skip;

uiTest('a task is visible in the Temporal UI with its status and summary', async () => {
  expect(haveChromium ? CHROMIUM : `Chromium not found at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`).toBe(CHROMIUM);
  const { temporal, url } = stack;
  const { taskId } = await call(url, 'tools/call', {
    name: 'approve_expense',
    arguments: { amount: 42, description: 'conference ticket' },
  });
  await pollTask(url, taskId, (t) => t.status === 'input_required');

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${temporal.server.uiUrl}/namespaces/default/workflows/${taskId}`, { waitUntil: 'domcontentloaded' });
    await page.getByText(taskId).first().waitFor({ timeout: 30_000 });
    await page
      .getByText(/^running$/i)
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByText('approveExpense', { exact: true }).first().waitFor({ timeout: 30_000 }); // workflow type
    await page.getByText('User Metadata').first().click();
    // the UI renders summary and details as markdown (typographic quotes), in frames of their own
    await waitForText(page, /approve_expense\(amount=42, description=.conference ticket.\)/);
    await waitForText(page, /input_required: waiting for approval/); // current details: statusMessage
    await waitForText(page, /waiting for input: approval/);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'ui-task.png'), fullPage: true });
    const list = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await list.goto(
      `${temporal.server.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(`McpTaskStatus="input_required" AND TaskQueue="${stack.taskQueue}"`)}`,
      { waitUntil: 'domcontentloaded' },
    );
    await list.getByText(taskId).first().waitFor({ timeout: 30_000 });
    await list.screenshot({ path: path.join(ARTIFACTS, 'ui-input-required.png') });
  } finally {
    await browser.close();
  }
  await call(url, 'tasks/cancel', { taskId });
});
