import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { database, env, signIn } from './support';
import { seedEpisode } from './seed-episode';

/**
 * Issue 17, resources and workers: node → workers → jobs on /workers (a host with its totals,
 * its workers with their own CPU and memory, a worker's detail with the job it runs now,
 * linked to its run and episode, and its recent log lines), and /resources and /workers
 * showing the same busy sandboxes, running jobs and active runs. /resources' memory chart has
 * a capacity line, its queue-depth chart a unit and a legend. Against the app `npm start`
 * runs: a job and a sandbox are held by its live job worker (a queue no handler serves), a
 * job waits on another, and all are cleaned up after. Screenshots at 1440 and 1024 px go to
 * $TMPDIR/crucible-e2e-screenshots/ (copies in docs/screenshots/).
 */

const shots = path.join(os.tmpdir(), 'crucible-e2e-screenshots');

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

const figures = async (page: Page) => ({
  busySandboxes: (await page.getByTestId('activity-busy-sandboxes').textContent())?.trim(),
  runningJobs: (await page.getByTestId('activity-running-jobs').textContent())?.trim(),
  activeRuns: (await page.getByTestId('activity-active-runs').textContent())?.trim(),
});

test('node → workers → jobs, and /resources and /workers show the same figures', async ({ page }) => {
  test.setTimeout(180_000);
  const sql = database();
  const tag = `drill-${Date.now().toString(36)}`;
  try {
    // A job worker loads the RL stack before it registers: on a busy host that takes a while after the app answers.
    const runningJobWorker = async () =>
      (await sql`select id, hostname from workers where kind = 'jobs' and status = 'running' order by heartbeat_at desc limit 1`)[0];
    await expect.poll(runningJobWorker, { message: 'a running job worker', timeout: 90_000, intervals: [1_000] }).toBeDefined();
    const worker = await runningJobWorker();
    const workerId = String(worker!.id);
    const hostname = String(worker!.hostname);
    const seeded = await seedEpisode(sql, tag);
    const [held] = await sql`
      insert into jobs (queue, payload, state, attempts, lease_owner, lease_token, lease_expires_at, run_id, started_at)
      values ('e2e.drill', ${sql.json({ runId: seeded.runId, episodeId: seeded.episodeId })}, 'running', 1, ${workerId}, gen_random_uuid(),
        now() + interval '10 minutes', ${seeded.runId}, now() - interval '42 seconds')
      returning id`;
    const [waiting] = await sql`insert into jobs (queue, payload, state) values ('e2e.waiting', '{}', 'queued') returning id`;
    const sandboxId = `e2e-${tag}`;
    await sql`insert into sandboxes (id, worker_id, runtime, state, episode_id) values (${sandboxId}, ${workerId}, 'bwrap', 'busy', ${seeded.episodeId})`;
    try {
      await signIn(page, 'admin', env.adminPassword);
      await page.goto('/workers');

      // node: the worker's host, with its totals
      const host = page.getByTestId('host-section').filter({ has: page.getByTestId('host-name').getByText(hostname, { exact: true }) });
      await expect(host).toBeVisible();
      await expect(host.getByTestId('host-running-jobs')).not.toHaveText('0');
      await expect(host.getByTestId('host-busy-sandboxes')).not.toHaveText('0');
      // workers: each with its own CPU and memory (reported by its heartbeat every 5 s)
      const row = host.getByTestId('worker-row').filter({ hasText: workerId });
      await expect(row.getByTestId('worker-cpu')).toHaveText(/\d%/, { timeout: 20_000 });
      await expect(row.getByTestId('worker-memory')).toHaveText(/\d+(\.\d)? (MB|GB)/);
      await expect(row.getByTestId('worker-job').filter({ hasText: `e2e.drill #${held!.id}` })).toContainText(`run ${seeded.runName}`);

      // the activity strip counts the held job
      await expect(page.getByTestId('activity-running-jobs')).not.toHaveText('0');
      await screenshot(page, 'workers-drilldown');

      // collapsing the host hides its workers; opening it shows them again
      await host.getByTestId('host-summary').click();
      await expect(row).toBeHidden();
      await host.getByTestId('host-summary').click();
      await expect(row).toBeVisible();

      // jobs: the worker's detail page
      await row.getByTestId('worker-link').click();
      await expect(page).toHaveURL(new RegExp(`/workers/${encodeURIComponent(workerId)}$`));
      await expect(page.getByRole('heading', { name: workerId })).toBeVisible();
      await expect(page.getByTestId('breadcrumb-host')).toHaveText(hostname);
      await expect(page.getByTestId('detail-cpu')).toHaveText(/\d%/);
      await expect(page.getByTestId('detail-memory')).toHaveText(/\d+(\.\d)? (MB|GB)/);
      const job = page.getByTestId('detail-job').filter({ hasText: `#${held!.id}` });
      await expect(job).toContainText('e2e.drill');
      await expect(job.getByRole('link', { name: seeded.runName })).toHaveAttribute('href', `/runs/${seeded.runId}`);
      await expect(job.getByRole('link', { name: seeded.episodeId.slice(0, 8) })).toHaveAttribute('href', `/episodes/${seeded.episodeId}`);
      await expect(page.getByRole('table', { name: 'Busy sandboxes' })).toContainText(sandboxId);
      // its recent log lines, from its own logger, stored with the heartbeat: its start-up lines, or on
      // a busy worker (the whole e2e suite) the job lifecycle lines that pushed them out of the ring
      await expect(page.getByTestId('worker-log')).toContainText(new RegExp(`registered as ${workerId}|job \\d+ (claimed|finished)`));
      await screenshot(page, 'worker-detail');
      await job.getByRole('link', { name: seeded.runName }).click();
      await expect(page).toHaveURL(new RegExp(`/runs/${seeded.runId}$`));

      // /resources: the same busy sandboxes, running jobs and active runs. Other specs' runs may still be
      // finishing in the app's workers, so the figures can move between two page loads: read both pages
      // back to back until a pair agrees (both come from one live source, so a steady state always does).
      await expect(async () => {
        await page.goto('/workers');
        await expect(page.getByTestId('activity-running-jobs')).not.toHaveText('0');
        const left = await figures(page);
        await page.goto('/resources');
        await expect(page.getByTestId('activity-running-jobs')).toBeVisible();
        expect(await figures(page)).toEqual(left);
      }).toPass({ timeout: 60_000, intervals: [500, 1_000, 2_000] });
      // the memory chart has its node's capacity line; queue depth a unit and a legend with the waiting queue
      const memory = page.getByTestId('memory-chart');
      await expect(memory.locator('.recharts-reference-line')).not.toHaveCount(0, { timeout: 30_000 });
      await expect(memory).toContainText(`${hostname} total`);
      const queue = page.getByTestId('queue-chart');
      await expect(queue).toContainText('(jobs)');
      // the sampler writes every 5 s and the chart refetches every 10 s
      await expect(queue.locator('.recharts-legend-item').filter({ hasText: 'standard · e2e.waiting' })).toBeVisible({ timeout: 30_000 });
      await expect(page.getByRole('table', { name: 'Runs' }).or(page.getByText('No active runs.'))).toBeVisible();
      // a node links to its workers
      await expect(page.getByTestId('node-row').getByRole('link', { name: hostname })).toHaveAttribute(
        'href',
        `/workers#host-${hostname.replace(/[^A-Za-z0-9_-]/g, '-')}`,
      );
      await screenshot(page, 'resources-capacity');
    } finally {
      await sql`update jobs set state = 'done', lease_owner = null, lease_token = null, finished_at = now() where id = ${held!.id}`;
      await sql`update jobs set state = 'cancelled', finished_at = now() where id = ${waiting!.id}`;
      await sql`update sandboxes set state = 'destroyed', destroyed_at = now() where id = ${sandboxId}`;
    }
  } finally {
    await sql.end();
  }
});
