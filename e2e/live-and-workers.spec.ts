import assert from 'node:assert';
import { expect, test } from '@playwright/test';
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

test('the workers page lists the worker processes npm start runs', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workers' }).click();
  const rows = page.getByTestId('worker-row');
  await expect(rows.filter({ hasText: 'maintenance' }).first()).toBeVisible();
  await expect(rows.first().getByTestId('status')).toHaveText('running');
});
