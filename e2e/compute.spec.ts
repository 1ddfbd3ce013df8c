import { expect, test } from '@playwright/test';
import { database, env, signIn, screenshotAtWidths } from './support';
import { seedEpisode } from './seed-episode';

/**
 * Issue 37 §2, where the compute goes: /resources stacks each node's CPU into Crucible's workers,
 * the learner, the sandboxes, the console/database/supervisor and "other", from the metrics worker
 * the e2e app runs (every 5 s); a run's CPU-seconds per phase show on its page and in /resources'
 * per-run table (seeded as the job loop commits them: run_compute), and in /api/metrics.
 * Screenshots go to $TMPDIR/crucible-e2e-screenshots/ (copies in docs/screenshots/).
 */

const percent = (text: string | null) => Number(/(\d+)%\s*$/.exec(text ?? '')?.[1] ?? NaN);

test('node CPU stacked by what uses it, and a run’s CPU-seconds per phase', async ({ page }) => {
  test.setTimeout(150_000);
  const sql = database();
  const tag = `compute-${Date.now().toString(36)}`;
  try {
    const seeded = await seedEpisode(sql, tag);
    // what the job loop commits with each job: CPU-seconds per phase (no GPU on this host)
    const phases: [string, number, number][] = [
      ['sampling', 42.5, 24],
      ['sandbox', 3.25, 6],
      ['grading', 18.75, 24],
      ['learning', 95, 3],
      ['heldout_eval', 61.5, 4],
    ];
    for (const [phase, cpu, jobs] of phases) {
      await sql`insert into run_compute (run_id, phase, cpu_seconds, gpu_seconds, jobs) values (${seeded.runId}, ${phase}, ${cpu}, 0, ${jobs})`;
    }

    await signIn(page, 'admin', env.adminPassword);
    await page.goto('/resources');
    await expect(page.getByRole('heading', { name: 'Resources' })).toBeVisible();
    // the sampler needs two readings a few seconds apart before it can stack a node's CPU
    const bar = page.getByTestId('cpu-parts').first();
    await expect(bar).toBeVisible({ timeout: 60_000 });
    const parts = ['workers', 'learner', 'sandboxes', 'platform', 'other'];
    for (const p of parts) await expect(bar.getByTestId(`cpu-part-${p}`)).toBeVisible();
    await expect(bar.getByTestId('cpu-part-workers')).toContainText("Crucible's workers");
    await expect(bar.getByTestId('cpu-part-other')).toContainText('Other (not started by Crucible)');
    // Crucible's own processes are attributed (the web server answering us, its workers heartbeating): not all "other"
    await expect
      .poll(
        async () => {
          await page.reload();
          const b = page.getByTestId('cpu-parts').first();
          await b.waitFor();
          let attributed = 0;
          for (const p of ['workers', 'learner', 'sandboxes', 'platform']) attributed += percent(await b.getByTestId(`cpu-part-${p}`).textContent());
          return attributed;
        },
        { message: "some of the node's CPU attributed to Crucible's processes", timeout: 60_000, intervals: [5_000] },
      )
      .toBeGreaterThan(0);
    // the stacked parts add up to the node's utilisation (each rounded: within a few points)
    const row = page.getByTestId('node-row').first();
    const nodeCpu = Number(/(\d+)% of/.exec((await row.textContent()) ?? '')?.[1] ?? NaN);
    let sum = 0;
    for (const p of parts) sum += percent(await row.getByTestId(`cpu-part-${p}`).textContent());
    expect(Number.isFinite(nodeCpu)).toBe(true);
    expect(Math.abs(sum - nodeCpu)).toBeLessThanOrEqual(15);

    // /workers stacks the node's CPU the same way, from the same snapshot
    await page.goto('/workers');
    await expect(page.getByTestId('host-section').getByTestId('cpu-parts').first()).toBeVisible();
    await page.goto('/resources');

    // the per-run table: the seeded run with its phases
    const runRow = page
      .getByRole('table', { name: 'Compute per run' })
      .getByTestId('run-compute-row')
      .filter({ hasText: `seeded-run-${tag}` });
    await expect(runRow).toBeVisible();
    await expect(runRow.locator('[data-phase="learning"]')).toHaveText('1 min 35 s');
    await expect(runRow.locator('[data-phase="heldout_eval"]')).toHaveText('1 min 02 s');
    await expect(runRow.locator('[data-phase="sandbox"]')).toHaveText('3.25 s');
    await expect(runRow.locator('[data-phase="other"]')).toHaveText('—');
    await expect(runRow).toContainText('3 min 41 s'); // 221 CPU-seconds in all
    await runRow.scrollIntoViewIfNeeded();
    await screenshotAtWidths(page, 'resources-compute', { fullPage: true });

    // the run page: its Compute section, every phase with its share; no GPU column without a GPU
    await runRow.getByRole('link', { name: `seeded-run-${tag}` }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${seeded.runId}$`));
    const compute = page.getByRole('region', { name: 'Compute' });
    await expect(compute.getByTestId('compute-total')).toContainText('3 min 41 s of CPU so far');
    const rows = compute.getByTestId('compute-phase-row');
    await expect(rows).toHaveCount(6);
    await expect(rows.filter({ hasText: 'Learning' })).toContainText('1 min 35 s');
    await expect(rows.filter({ hasText: 'Learning' })).toContainText('43%');
    await expect(rows.filter({ hasText: 'Held-out evaluation' })).toContainText('28%');
    await expect(rows.filter({ hasText: 'Sandbox execution' }).getByTestId('compute-cpu')).toHaveText('3.25 s');
    await expect(rows.filter({ hasText: 'Grading' })).toContainText('18.8 s');
    await expect(compute.getByRole('columnheader', { name: 'GPU-seconds' })).toHaveCount(0);
    await compute.scrollIntoViewIfNeeded();
    await screenshotAtWidths(page, 'run-compute', { fullPage: true });

    // Prometheus: a counter per run and phase
    const metrics = await (await page.request.get('/api/metrics')).text();
    expect(metrics).toContain(`crucible_run_cpu_seconds_total{run="${seeded.runId}",phase="learning"} 95`);
    expect(metrics).toMatch(/^crucible_node_cpu_part\{node="[^"]+",part="other"\} /m);
  } finally {
    await sql.end();
  }
});
