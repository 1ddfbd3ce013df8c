import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, seedSuiteAndTask, signIn } from './support';

/**
 * Issue 17, the run page: the overview facts show dates and other values whole at 1024 px
 * (they were cut off with an ellipsis), so does the config (the agent's tool list ran over
 * the next column), and the event timeline loads a long run's events a
 * page at a time, newest first, with "Load older events". Screenshots at 1440 and 1024 px go
 * to $TMPDIR/crucible-e2e-screenshots/ (copies in docs/screenshots/run-facts-*.png).
 */

const tag = Date.now().toString(36);
const shots = path.join(os.tmpdir(), 'crucible-e2e-screenshots');
// more than two of the timeline's pages (50 events each)
const EVENTS = 120;
const message = (k: number) => `seeded event ${String(k).padStart(3, '0')}`;

let runId = '';

test.beforeAll(async () => {
  const sql = database();
  try {
    const suite = `events-suite-${tag}`;
    const { suiteId } = await seedSuiteAndTask(sql, suite);
    const config = { ...defaultRunConfig, suite, iterations: 120, groupSize: 2, tasksPerIteration: 1 };
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, last_reward_mean, started_at, finished_at)
      values (${`events-run-${tag}`}, 'completed', ${sql.json(config)}, ${suiteId}, 120, 240, 240, 0.8125, now() - interval '3 hours', now())
      returning id`;
    assert(run !== undefined, 'no run');
    runId = run.id as string;
    // One a second, but events 70 and 71 share a timestamp: the first page ends at 71, so the
    // second starts inside the tie (a cursor on the time alone would skip 70).
    const rows = Array.from({ length: EVENTS }, (_, i) => {
      const k = i + 1;
      const secondsAgo = EVENTS - (k === 70 ? 71 : k);
      return {
        run_id: runId,
        type: 'iteration',
        actor: 'system:rl',
        message: message(k),
        data: { iteration: k },
        at: new Date(Date.now() - secondsAgo * 1000),
      };
    });
    await sql`insert into run_events ${sql(rows, 'run_id', 'type', 'actor', 'message', 'data', 'at')}`;
  } finally {
    await sql.end();
  }
});

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 720 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: false });
  }
}

/** Overview values whose text is wider than their box (cut off): none when the facts fit or wrap. */
const clippedFacts = (page: Page) =>
  page
    .getByRole('region', { name: 'Overview' })
    .locator('dd')
    .evaluateAll((dds) => dds.filter((d) => d.scrollWidth > d.clientWidth + 1).map((d) => d.textContent));

/** Config tables wider than their column (a long value running over the next one): none when values wrap. */
const overflowingConfig = (page: Page) =>
  page
    .getByRole('region', { name: 'Config' })
    .locator('table')
    .evaluateAll((tables) => tables.filter((t) => t.getBoundingClientRect().right > t.parentElement!.getBoundingClientRect().right + 1).length);

test('the overview facts and the config show their values whole at 1024 and 1440 px', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/runs/${runId}`);
  const overview = page.getByRole('region', { name: 'Overview' });
  // the whole page loaded (progress, events), so the screenshots show it settled
  await expect(page.getByTestId('run-progress')).toContainText('overall: 240 / 240 episodes');
  await expect(page.getByTestId('run-event').first()).toBeVisible();
  await expect(page.getByText('No metrics yet')).toBeVisible();
  await screenshot(page, 'run-facts');
  await page.screenshot({ path: path.join(shots, 'run-page-full.png'), fullPage: true }); // not kept in docs: for looking at the whole page
  for (const width of [1024, 1440]) {
    await page.setViewportSize({ width, height: 720 });
    await expect(overview.locator('dd').filter({ hasText: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/ })).toHaveCount(2);
    expect(await clippedFacts(page), `clipped at ${width} px`).toEqual([]);
    expect(await overflowingConfig(page), `config tables overflowing at ${width} px`).toBe(0);
  }
});

test('the event timeline pages a long run, newest first, with "Load older events"', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/runs/${runId}`);
  const events = page.getByTestId('run-event');
  const older = page.getByRole('button', { name: 'Load older events' });
  const shown = async () => (await events.locator('[data-testid="run-event-message"]').allTextContents()).map((t) => t.trim());
  const expected = (n: number) => Array.from({ length: n }, (_, i) => message(EVENTS - i));

  // the newest page only
  await expect(events).toHaveCount(50);
  expect(await shown()).toEqual(expected(50));

  // each older page follows on: none repeated, none skipped, across the tie at 70/71
  await older.click();
  await expect(events).toHaveCount(100);
  expect(await shown()).toEqual(expected(100));
  // the timeline scrolled to its end, where the control is
  await older.scrollIntoViewIfNeeded();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 720 });
    await page.getByRole('region', { name: 'Events' }).screenshot({ path: path.join(shots, `run-events-older-${width}.png`) });
  }
  await older.click();
  await expect(events).toHaveCount(EVENTS);
  expect(await shown()).toEqual(expected(EVENTS));
  await expect(older).toHaveCount(0);
  await expect(page.getByTestId('run-events-end')).toHaveText(`All ${EVENTS} events shown.`);
});
