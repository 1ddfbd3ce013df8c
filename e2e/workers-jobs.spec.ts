import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { database, env, signIn } from './support';

/**
 * Issue 17, resources and workers: /workers shows the job each worker holds the lease of now
 * (the jobs table, where the queue itself says a job runs), linked to its run. A job is
 * leased to a live job worker of the app `npm start` runs, on a queue no handler serves, and
 * finished after. Screenshots at 1440 and 1024 px go to $TMPDIR/crucible-e2e-screenshots/
 * (copies in docs/screenshots/).
 */

const shots = path.join(os.tmpdir(), 'crucible-e2e-screenshots');

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

test('the workers page shows the job each worker runs now, with its run', async ({ page }) => {
  const sql = database();
  try {
    const [worker] = await sql`select id from workers where kind = 'jobs' and status = 'running' order by heartbeat_at desc limit 1`;
    expect(worker, 'a running job worker').toBeDefined();
    const [run] = await sql`select id from runs order by created_at desc limit 1`;
    const [job] = await sql`
      insert into jobs (queue, payload, state, attempts, lease_owner, lease_token, lease_expires_at, run_id, started_at)
      values ('e2e.hold', '{}', 'running', 2, ${worker!.id}, gen_random_uuid(), now() + interval '10 minutes', ${run?.id ?? null}, now() - interval '90 seconds')
      returning id`;
    try {
      await signIn(page, 'admin', env.adminPassword);
      await page.goto('/workers');
      const row = page.getByTestId('worker-row').filter({ hasText: String(worker!.id) });
      const held = row.getByTestId('worker-job').filter({ hasText: `e2e.hold #${job!.id}` });
      await expect(held).toBeVisible();
      await expect(held).toContainText('attempt 2');
      if (run) await expect(held.getByRole('link')).toHaveAttribute('href', `/runs/${run.id}`);
      // workers without a job say so
      await expect(page.getByTestId('worker-jobs').filter({ hasText: 'idle' }).first()).toBeVisible();
      await screenshot(page, 'workers-jobs');
    } finally {
      await sql`update jobs set state = 'done', lease_owner = null, lease_token = null, finished_at = now() where id = ${job!.id}`;
    }
  } finally {
    await sql.end();
  }
});
