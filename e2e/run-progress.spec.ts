import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { env, signIn } from './support';

/**
 * Issue 17, run start-up and progress: a new run says what it is doing from the first
 * second (SFT warm start, held-out evaluation, iteration k of n sampling / learning) with
 * episodes done/total and an episode-counting bar, through the real loop `npm start` runs
 * (SFT and held-out sizes shrunk by scripts/e2e.ts). Screenshots at 1440 and 1024 px go to
 * $TMPDIR/crucible-e2e-screenshots/ (copies in docs/screenshots/).
 */

const tag = Date.now().toString(36);
// outside test-results/, which every Playwright run (another spec's too) empties at its start
const shots = path.join(os.tmpdir(), 'crucible-e2e-screenshots');

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: false });
  }
  if (before) await page.setViewportSize(before);
}

test('a new run names its phase from the start: warm start, held-out evaluation, iteration k of n, episodes, ETA', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/runs/new');
  await page.getByLabel('Run name').fill(`progress-${tag}`);
  await page.getByLabel('Iterations').fill('2');
  await page.getByLabel('Tasks per iteration').fill('2');
  await page.getByLabel('Group size').fill('2');
  await page.getByLabel('Max turns per episode').fill('1');
  await page.getByLabel('Concurrent episodes').fill('2');
  await page.getByRole('button', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 60_000 }); // a launch before any sandbox worker registered waits for the runtime probe

  // from the first second: the run says what it waits for or does, never a bare "queued"
  const phase = page.getByTestId('run-phase');
  await expect(phase).toHaveText(/waiting for a worker|held-out evaluation|SFT warm start/, { timeout: 10_000 });
  // the start-up phases, as the worker announces them (the page polls every 2 s)
  await expect(phase).toHaveText(/SFT warm start \(20 steps\)|held-out evaluation of (the initialisation|policy v0) \(4 tasks\)/, { timeout: 60_000 });
  await expect(page.getByTestId('run-progress')).toContainText('overall: 0 / 8 episodes');
  await screenshot(page, 'run-progress-startup');

  // the iterations: k of n with this iteration's episodes, and a bar that counts episodes
  await expect(phase).toHaveText(/^iteration [12] of 2: (sampling 4 episodes|learning \(policy update\)|held-out evaluation of policy v\d)/, {
    timeout: 150_000,
  });
  await expect(page.getByTestId('run-iteration')).toHaveText(/Iteration [12] of 2/);
  await expect(page.getByTestId('iteration-episodes')).toHaveText(/this iteration: \d \/ 4 episodes done/);
  await expect(page.getByTestId('run-progress').getByRole('progressbar')).toBeVisible();
  await expect(page.getByTestId('run-eta')).toHaveText(/^ETA (≈|≥) \d+ (s|min)|^ETA: (after the first episodes|when this step ends)/);
  await screenshot(page, 'run-progress-iteration');

  // to the end, where the bar is full and the events tell each phase
  await expect(phase).toHaveText('completed all 2 iterations', { timeout: 200_000 });
  await expect(page.getByTestId('overall-episodes')).toHaveText('overall: 8 / 8 episodes');
  await expect(page.getByTestId('run-progress').getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  const events = page.getByTestId('run-event');
  await expect(events.filter({ hasText: 'SFT warm start (20 steps) started' })).toHaveCount(1);
  await expect(events.filter({ hasText: /held-out evaluation of policy v0 \(4 tasks\) finished: pass@1/ })).toHaveCount(1);
  await expect(events.filter({ hasText: 'iteration 1 of 2: sampling 4 episodes started' })).toHaveCount(1);
  await expect(events.filter({ hasText: 'iteration 2 of 2: learning (policy update) started' })).toHaveCount(1);
});
