import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { RL_ITERATION_METRICS } from '@/core/metrics';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, signIn } from './support';

test('an active run page updates itself as the run progresses, without a reload', async ({ page }) => {
  const sql = database();
  try {
    const name = `live-run-${Date.now().toString(36)}`;
    const [run] = await sql`
      insert into runs (name, status, config, current_iteration, episodes_total, episodes_done, started_at)
      values (${name}, 'running', ${sql.json({ ...defaultRunConfig, iterations: 5 })}, 0, 40, 0, now())
      returning id`;
    assert(run !== undefined, 'no row found');
    await signIn(page, 'admin', env.adminPassword);
    await page.goto(`/runs/${run.id}`);
    await expect(page.getByTestId('run-status')).toHaveText('running');
    await expect(page.getByText('No metrics yet')).toBeVisible();
    const marker = await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = Math.random()));

    // What the trainer would write after two iterations.
    await sql`update runs set current_iteration = 2, episodes_done = 16, last_reward_mean = 0.41, updated_at = now() where id = ${run.id}`;
    await sql`insert into metric_samples (run_id, source, name, step, value) values (${run.id}, 'trainer', 'kl', 1, 0.01), (${run.id}, 'trainer', 'kl', 2, 0.02)`;
    await sql`insert into run_events (run_id, type, message) values (${run.id}, 'iteration', 'iteration 2 finished')`;

    const overview = page.getByRole('region', { name: 'Overview' });
    await expect(overview).toContainText('2 / 5');
    await expect(overview).toContainText('16 / 40');
    await expect(overview).toContainText('0.41');
    await expect(page.getByTestId('metric-chart').filter({ hasText: 'kl' })).toBeVisible();
    await expect(page.getByTestId('run-event').filter({ hasText: 'iteration 2 finished' })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __noReload: number }).__noReload)).toBe(marker);
  } finally {
    await sql.end();
  }
});

test('a live run page draws the panels near the viewport only, and keeps them current', async ({ page }) => {
  test.setTimeout(120_000);
  const sql = database();
  try {
    const name = `light-run-${Date.now().toString(36)}`;
    const [run] = await sql`
      insert into runs (name, status, config, current_iteration, episodes_total, episodes_done, started_at)
      values (${name}, 'running', ${sql.json({ ...defaultRunConfig, iterations: 100 })}, 30, 800, 240, now() - interval '30 minutes')
      returning id`;
    assert(run !== undefined, 'no run');
    // every RL iteration metric for 30 iterations: some 40 panels, most of them below the fold
    const iteration = (step: number) => sql`
      insert into metric_samples (run_id, source, name, step, value)
      select ${run.id}::uuid, 'rl', n, ${step}::int, 0.5 + 0.01 * ${step}::int from unnest(${RL_ITERATION_METRICS as unknown as string[]}::text[]) n`;
    for (let s = 1; s <= 30; s++) await iteration(s);

    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, 'admin', env.adminPassword);
    await page.goto(`/runs/${run.id}`);
    const panel = (metric: string) => page.locator(`[data-testid="metric-chart"][data-metric="${metric}"]`);
    const top = panel('reward_mean');
    const bottom = page.getByTestId('metric-chart').last();
    await expect(top.locator('svg.recharts-surface')).toBeVisible();
    // the last panel is far below: a placeholder of the same size, nothing drawn
    await expect(bottom.getByTestId('chart-placeholder')).toBeAttached();
    await expect(bottom.locator('svg')).toHaveCount(0);
    const drawnAtFirst = await page.locator('[data-testid="metric-chart"]:has(svg.recharts-surface)').count();
    expect(drawnAtFirst).toBeLessThan(await page.getByTestId('metric-chart').count());
    expect(drawnAtFirst).toBeGreaterThan(0);

    // scrolled to, it draws
    await bottom.scrollIntoViewIfNeeded();
    await expect(bottom.locator('svg.recharts-surface')).toBeVisible();
    await expect(bottom.getByTestId('chart-placeholder')).toHaveCount(0);
    const bottomPath = await bottom.locator('.recharts-line-curve').first().getAttribute('d');

    // a new iteration reaches the panels without a reload: the one in view at once, the one
    // scrolled away when it comes back
    await page.evaluate(() => window.scrollTo(0, 0));
    const kl = panel('kl');
    await kl.scrollIntoViewIfNeeded();
    await expect(kl).toContainText('@ 30');
    const klPath = await kl.locator('.recharts-line-curve').first().getAttribute('d');
    await iteration(31);
    await sql`update runs set current_iteration = 31, episodes_done = 248, updated_at = now() where id = ${run.id}`;
    await expect(kl).toContainText('@ 31', { timeout: 20_000 });
    await expect.poll(() => kl.locator('.recharts-line-curve').first().getAttribute('d')).not.toBe(klPath);
    await bottom.scrollIntoViewIfNeeded();
    await expect.poll(() => bottom.locator('.recharts-line-curve').first().getAttribute('d')).not.toBe(bottomPath);

    // docs/screenshots/live-run-page.png: the viewport as an operator sees it
    await page.evaluate(() => window.scrollTo(0, 0));
    const shots = path.join(os.tmpdir(), 'crucible-e2e-screenshots');
    fs.mkdirSync(shots, { recursive: true });
    await page.getByRole('region', { name: 'Metrics' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'live-run-page-1440.png') });
  } finally {
    await sql.end();
  }
});

test('the workers page lists the worker processes npm start runs', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workers' }).click();
  const rows = page.getByTestId('worker-row');
  await expect(rows.filter({ hasText: 'maintenance' }).first()).toBeVisible();
  await expect(rows.first().getByTestId('status')).toHaveText('running');
});
