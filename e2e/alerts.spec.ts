import assert from 'node:assert';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, signIn } from './support';

// Issue 38: the console's side of alerting. A paused run whose learner reported skipped
// (non-finite) updates: the maintenance worker's rules fire a critical alert within an
// evaluation (2 s in e2e), shown on /alerts, counted in the nav, bannered on the run page;
// an operator acknowledges it, silences it with a reason and ends the silence.

test('an alert fires from a run, shows in the nav, the run page and /alerts; acknowledge, silence, unsilence', async ({ page }) => {
  const sql = database();
  const name = `alerting-${Date.now().toString(36)}`;
  const [run] = await sql`
    insert into runs (name, status, config, current_iteration, started_at)
    values (${name}, 'paused', ${sql.json({ ...defaultRunConfig, iterations: 3 })}, 1, now()) returning id`;
  assert(run !== undefined);
  await sql`insert into metric_samples (run_id, source, name, step, value) values (${run.id}, 'rl', 'skipped_updates', 1, 2)`;
  await sql.end();

  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/alerts');
  const row = page.getByTestId('alert-row').filter({ hasText: 'RunSkippedUpdates' }).filter({ hasText: name });
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(row).toContainText('critical');
  await expect(row).toContainText('update(s) skipped: non-finite loss or gradient');
  // the nav's own poll is every 30 s; the list it agrees with refreshes it at once
  await expect(page.getByTestId('nav-alert-count')).toBeVisible();
  await page.screenshot({ path: path.join(os.tmpdir(), 'crucible-e2e-screenshots', 'alerts-1440.png'), fullPage: true });

  // the run page says so at the top
  await row.getByRole('link', { name }).click();
  await expect(page.getByTestId('run-alert-banner')).toContainText('RunSkippedUpdates');
  await page.goBack();

  await row.getByTestId('alert-ack').click();
  await expect(row.getByTestId('alert-acked')).toContainText('acknowledged by');

  await row.getByTestId('alert-silence').click();
  const form = page.getByTestId('silence-form');
  await expect(form.getByLabel(/Matchers/)).toHaveValue(new RegExp(`alertname=RunSkippedUpdates\\nrun=${run.id}`));
  await form.getByRole('button', { name: 'Silence' }).click();
  await expect(form.getByRole('alert')).toContainText('say why'); // no reason given
  await form.getByLabel(/Reason/).fill('known: fp16 overflow, fixing the config');
  await form.getByRole('button', { name: 'Silence' }).click();
  await expect(form).toHaveCount(0);
  const silence = page.getByTestId('silence-row').filter({ hasText: 'known: fp16 overflow' });
  await expect(silence).toBeVisible();
  await expect(row.getByTestId('alert-muted')).toContainText('silenced: known: fp16 overflow', { timeout: 20_000 });

  await silence.getByTestId('silence-end').click();
  await expect(silence).toHaveCount(0);
  await expect(row.getByTestId('alert-muted')).toHaveCount(0, { timeout: 20_000 });
});
