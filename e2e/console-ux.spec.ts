import assert from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { Sql } from 'postgres';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, seedSuiteAndTask, signIn } from './support';

/**
 * Issue 17 (console UX): the review flow (items open at the top, pinned verdict controls,
 * "item N of M", auto-advance, blind items without reward components, the viewer's message,
 * the run page's review card), the metric charts' axes and controls, and the episode page's
 * per-test results and load errors. Each test seeds what the RL loop would have written.
 * Screenshots of every changed page at 1440 and 1024 px go to test-results/screenshots/ (the
 * copies in docs/screenshots/ were taken from there).
 */

const tag = Date.now().toString(36);
const shots = path.resolve('test-results', 'screenshots');
const reviewer = { username: `ux-review-${tag}`, password: 'ux-review-pass-123' };
const viewer = { username: `ux-view-${tag}`, password: 'ux-viewer-pass-123' };

async function withDb<T>(f: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = database();
  try {
    return await f(sql);
  } finally {
    await sql.end();
  }
}

async function insertScoredEpisode(sql: Sql, runId: string, taskId: string, i: number, longOutput = '') {
  const [ep] = await sql`
    insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, end_reason, started_at, finished_at)
    values (${runId}, ${taskId}, 0, 0, ${i}, 'scored', 'bwrap', 'sha256:e2e', 1, 'solved', now() - interval '1 minute', now()) returning id`;
  assert(ep !== undefined, 'no episode');
  await sql`insert into turns (episode_id, index, action, observation, stdout, stderr, exit_code, exec_status)
    values (${ep.id}, 0, ${'    return a + b'}, '2/2 passed', ${longOutput}, '', 0, 'ok')`;
  await sql`insert into rewards (episode_id, value, components, env_hash, harness_version)
    values (${ep.id}, 0.75, ${sql.json({ passRate: 1, testsPassed: 2, testsTotal: 2, style: 0.5, efficiency: 0.5 })}, 'sha256:e2e', 'harness-e2e')`;
  return ep.id as string;
}

/** A finished run, blind review at rate 1, three scored episodes with long output, three review items. */
async function seedReviewRun() {
  return withDb(async (sql) => {
    const { suiteId, taskId } = await seedSuiteAndTask(sql, `ux-review-${tag}`);
    const config = { ...defaultRunConfig, suite: `ux-review-${tag}`, review: { ...defaultRunConfig.review, rate: 1, blind: true, doubleReviewShare: 0 } };
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at, finished_at)
      values (${`ux-review-run-${tag}`}, 'completed', ${sql.json(config)}, ${suiteId}, 1, 3, 3, now() - interval '5 minutes', now()) returning id`;
    assert(run !== undefined, 'no run');
    // long enough that an item is taller than the window: where it opens, and the pinned verdict, matter
    const long = Array.from({ length: 90 }, (_, k) => `debug line ${k}`).join('\n');
    const reviewIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ep = await insertScoredEpisode(sql, run.id, taskId, i, long);
      const [rev] = await sql`insert into reviews (episode_id, run_id, slot, sample_reason, created_at)
        values (${ep}, ${run.id}, 0, 'uniform', now() - interval '19 years' + ${i} * interval '1 second') returning id`;
      assert(rev !== undefined, 'no review');
      reviewIds.push(rev.id as string);
    }
    return { runId: run.id as string, reviewIds };
  });
}

async function createUsers(page: Page) {
  await signIn(page, 'admin', env.adminPassword);
  for (const [u, role] of [
    [reviewer, 'reviewer'],
    [viewer, 'viewer'],
  ] as const) {
    const res = await page.request.post('/api/trpc/users.create', { data: { json: { ...u, role } } });
    expect(res.ok(), await res.text()).toBe(true);
  }
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** The page at 1440 and 1024 px into `shots`/NAME-WIDTH.png; the viewport is put back after. */
async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300); // charts re-measure on resize
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: opts.fullPage ?? true });
  }
  if (before) await page.setViewportSize(before);
}

const item = (page: Page) => page.getByTestId('review-item');
const scrollY = (page: Page) => page.evaluate(() => window.scrollY);

test('review: items open at the top, verdict pinned, item N of M, auto-advance, blind items without components, viewer told about the role', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const seeded = await seedReviewRun();
  await createUsers(page);

  // A viewer is told that the role lacks access, not that the server is unreachable.
  await signIn(page, viewer.username, viewer.password);
  await page.goto('/review');
  await expect(page.getByTestId('no-access')).toContainText('Your role (viewer) has no access to the review queue');
  await expect(page.getByText('Cannot reach the Crucible server')).toHaveCount(0);
  await screenshot(page, 'review-viewer');
  await page.getByRole('button', { name: 'Sign out' }).click();

  await page.setViewportSize({ width: 1024, height: 768 });
  await signIn(page, reviewer.username, reviewer.password);
  await page.goto(`/review?run=${seeded.runId}`);
  await expect(page.getByTestId('queue-row')).toHaveCount(3);
  await page.keyboard.press('j');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[0]!);
  await expect(page.getByTestId('item-position')).toHaveText('Item 1 of 3');
  // The item opens at the top with the task and its tests; the verdict controls are pinned in view.
  await expect(page.getByTestId('task-prompt')).toBeInViewport();
  await expect(page.getByTestId('task-tests')).toBeInViewport();
  await expect(page.getByTestId('verdict-correct')).toBeInViewport();
  // A blind item has no reward components at all before its verdict.
  await expect(page.getByRole('region', { name: 'Reward components' })).toHaveCount(0);
  // Nor the check feedback the policy saw ("2/2 passed"): it is the reward's pass count.
  await expect(item(page).getByTestId('turn-status')).toHaveText('check result hidden until you give a verdict');
  await expect(item(page).getByTestId('observation')).toHaveCount(0);
  await screenshot(page, 'review-item-blind', { fullPage: false });

  // Judge it from the bottom of the page, as a keyboard reviewer who scrolled through would.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  expect(await scrollY(page)).toBeGreaterThan(200);
  await expect(page.getByTestId('verdict-correct')).toBeInViewport();
  await page.keyboard.press('1');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('saved-verdict')).toHaveText('saved: correct');
  await expect(page.getByRole('region', { name: 'Reward components' })).toContainText('passRate');
  await expect(item(page).getByTestId('turn-status')).toHaveText('2/2 tests passed');
  await expect(page.getByTestId('item-position')).toHaveText('Item 1 of 3');

  // The next item opens at the top again, not at the previous item's verdict box.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.keyboard.press('j');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[1]!);
  await expect(page.getByTestId('item-position')).toHaveText('Item 2 of 3');
  await expect.poll(() => scrollY(page)).toBe(0);
  await expect(page.getByTestId('task-prompt')).toBeInViewport();

  // Auto-advance: a verdict moves on to the next item by itself.
  await page.getByTestId('auto-advance').check();
  await page.keyboard.press('4');
  await page.keyboard.press('Enter');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[2]!);
  await expect(page.getByTestId('item-position')).toHaveText('Item 3 of 3');
  await expect.poll(() => scrollY(page)).toBe(0);
  await screenshot(page, 'review-item', { fullPage: false });
  const rows = await withDb((sql) => sql`select verdict from reviews where id in ${sql(seeded.reviewIds.slice(0, 2))}`);
  expect(rows.map((r) => r.verdict).sort()).toEqual(['correct', 'unclear']);
});

test('run page: the review card follows the run to the end (not "0 scored" after it scored)', async ({ page }) => {
  const { runId, taskId } = await withDb(async (sql) => {
    const { suiteId, taskId } = await seedSuiteAndTask(sql, `ux-live-${tag}`);
    const config = { ...defaultRunConfig, suite: `ux-live-${tag}`, iterations: 1, review: { ...defaultRunConfig.review, rate: 1 } };
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at)
      values (${`ux-live-run-${tag}`}, 'running', ${sql.json(config)}, ${suiteId}, 0, 2, 0, now()) returning id`;
    assert(run !== undefined, 'no run');
    return { runId: run.id as string, taskId };
  });
  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('review-coverage')).toContainText('of 0 scored');
  // The run scores its episodes and completes, as the last iteration's commit does.
  await withDb(async (sql) => {
    await insertScoredEpisode(sql, runId, taskId, 0);
    await insertScoredEpisode(sql, runId, taskId, 1);
    await sql`update runs set status = 'completed', current_iteration = 1, episodes_done = 2, finished_at = now() where id = ${runId}`;
  });
  await expect(page.getByTestId('run-status')).toContainText('completed', { timeout: 15_000 });
  await expect(page.getByTestId('review-coverage')).toContainText('of 2 scored', { timeout: 10_000 });
});

/** A finished run with 40 iterations of metrics: a reward spike, a tiny KL, an all-zero series, labelled failures. */
async function seedMetricsRun(name: string, offset = 0) {
  return withDb(async (sql) => {
    const { suiteId } = await seedSuiteAndTask(sql, `ux-charts-${name}-${tag}`);
    const config = { ...defaultRunConfig, suite: `ux-charts-${name}-${tag}`, iterations: 40, groupSize: 8, tasksPerIteration: 8 };
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, last_reward_mean, started_at, finished_at)
      values (${`${name}-${tag}`}, 'completed', ${sql.json(config)}, ${suiteId}, 40, 2560, 2560, 0.5, now() - interval '1 hour', now()) returning id, started_at`;
    assert(run !== undefined, 'no run');
    const rows: { run_id: string; source: string; name: string; step: number; value: number; labels: Record<string, string>; at: Date }[] = [];
    const start = (run.started_at as Date).getTime(); // the time axis counts from the run's start
    for (let s = 0; s <= 40; s++) {
      const at = new Date(start + s * 60_000);
      const mean = s === 20 ? 0.95 : 0.3 + offset + s * 0.005;
      const add = (n: string, value: number, labels: Record<string, string> = {}) =>
        rows.push({ run_id: run.id, source: 'rl', name: n, step: s, value, labels, at });
      add('reward_mean', mean);
      add('reward_std', 0.4);
      add('reward_min', 0);
      add('reward_max', s === 20 ? 1 : 0.8);
      add('kl', s === 0 ? 0 : 0.0001 * (1 + (s % 9)));
      add('infra_failed_rate', 0);
      if (s > 0) add('generated_tokens', 1_000 + 1_000 * offset * 10);
      add('sandbox_failures', s % 3, { status: 'sandbox_error' });
      add('sandbox_failures', s % 2, { status: 'preempted' });
    }
    await sql`
      insert into metric_samples (run_id, source, name, step, value, labels, at)
      select * from jsonb_to_recordset(${sql.json(rows.map((r) => ({ ...r, at: r.at.toISOString() })))})
        as x(run_id uuid, source text, name text, step int, value float8, labels jsonb, at timestamptz)`;
    return { runId: run.id as string };
  });
}

const chart = (page: Page, name: string) => page.locator(`[data-testid="metric-chart"][data-metric="${name}"]`);
// Panels draw their plot when scrolled near (components/runs/metric-charts.tsx): bring each into view first.
const yTicks = async (c: Locator) => {
  await c.scrollIntoViewIfNeeded();
  return c.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
};
const xTicks = async (c: Locator) => {
  await c.scrollIntoViewIfNeeded();
  return c.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
};

test('charts: readable axes, smoothing over a faint raw line, log y, x-axis choice, legend toggle, expand, CSV', async ({ page }) => {
  test.setTimeout(90_000);
  const a = await seedMetricsRun('ux-charts-a');
  const b = await seedMetricsRun('ux-charts-b', 0.1);
  await signIn(page, 'admin', env.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${a.runId}`);
  const reward = chart(page, 'reward_mean');
  await expect(reward).toBeVisible();

  // Axes: the tiny KL gets distinct scientific labels, the all-zero series the axis 0..1.
  await expect.poll(() => yTicks(chart(page, 'kl'))).toEqual(['0', '2e-4', '4e-4', '6e-4', '8e-4', '1e-3']);
  await expect.poll(() => yTicks(chart(page, 'infra_failed_rate'))).toEqual(['0', '0.2', '0.4', '0.6', '0.8', '1']);
  // Straight segments between points: a one-step spike stays one step wide (no spline hump).
  const rewardPath = reward.locator('.recharts-line-curve').first();
  await expect(rewardPath).toHaveAttribute('d', /^M[^C]*$/);

  // Smoothing: the EMA over the raw series, which stays behind it, faint.
  const lines = reward.locator('.recharts-line-curve');
  await reward.scrollIntoViewIfNeeded();
  await expect(lines).toHaveCount(3); // mean, min, max
  await page.getByLabel('Smoothing').fill('0.8');
  await expect(page.getByTestId('smoothing-value')).toHaveText('0.80');
  await expect(lines).toHaveCount(4);
  await expect(reward.locator('.recharts-line-curve[stroke-opacity="0.25"]')).toHaveCount(1);
  await screenshot(page, 'run-charts');
  await page.getByLabel('Smoothing').fill('0');

  // Log y: decades, and the zero KL at step 0 is said to be left out.
  await page.getByLabel('Log scale y').check();
  await expect.poll(() => yTicks(chart(page, 'kl'))).toEqual(['1e-4', '1e-3']);
  await expect(chart(page, 'kl').getByTestId('log-hidden')).toHaveText('1 value ≤ 0 not shown on a log scale');
  await page.getByLabel('Log scale y').uncheck();

  // x-axis: iterations, episodes (step × 64), time since the start.
  await expect.poll(() => xTicks(reward)).toEqual(['0', '10', '20', '30', '40']);
  await page.getByLabel('X axis').selectOption('episodes');
  await expect.poll(() => xTicks(reward)).toEqual(['0', '500', '1k', '1.5k', '2k', '2.5k', '3k']);
  await page.getByLabel('X axis').selectOption('time');
  await expect.poll(() => xTicks(reward)).toEqual(['0', '10m', '20m', '30m', '40m']);
  // generated tokens: 1,000 per iteration here, summed from each iteration's generated_tokens
  await page.getByLabel('X axis').selectOption('tokens');
  await expect.poll(() => xTicks(reward)).toEqual(['0', '10k', '20k', '30k', '40k']);
  await expect(reward.getByText('generated tokens')).toBeVisible();
  await screenshot(page, 'run-charts-tokens');
  await page.getByLabel('X axis').selectOption('iteration');

  // Legend toggle on a chart with several series.
  const failures = chart(page, 'sandbox_failures');
  await failures.scrollIntoViewIfNeeded();
  await expect(failures.locator('.recharts-line-curve')).toHaveCount(2);
  await failures.getByTestId('legend-item').filter({ hasText: 'status=preempted' }).click();
  await expect(failures.getByTestId('legend-item').filter({ hasText: 'status=preempted' })).toHaveAttribute('aria-pressed', 'false');
  await expect(failures.locator('.recharts-line-curve')).toHaveCount(1);

  // Expand a panel, and close it with Escape.
  await reward.getByTestId('expand-chart').click();
  await expect(page.getByRole('dialog', { name: 'reward_mean (expanded)' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'reward_mean (expanded)' })).toHaveCount(0);

  // CSV: one row per iteration, the band as low/high, clipped to the rewards' range.
  const [download] = await Promise.all([page.waitForEvent('download'), reward.getByTestId('chart-csv').click()]);
  expect(download.suggestedFilename()).toBe('reward_mean.csv');
  const csv = fs
    .readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\r\n');
  expect(csv[0]).toBe('iteration,reward_mean,reward_min,reward_max,±1 std low,±1 std high');
  expect(csv).toHaveLength(42);
  for (const line of csv.slice(1)) {
    const [, , min, max, lo, hi] = line.split(',').map(Number);
    expect(lo).toBeGreaterThanOrEqual(min!);
    expect(hi).toBeLessThanOrEqual(max!);
  }

  // Compare: the same controls, each run on its own clock and episode count.
  await page.goto(`/runs/compare?ids=${a.runId},${b.runId}`);
  await expect(page.getByTestId('chart-controls')).toBeVisible();
  await expect(page.getByLabel('X axis').locator('option')).toHaveText(['iteration', 'time since start', 'episodes', 'generated tokens']);
  await expect(chart(page, 'reward_mean').getByTestId('legend-item')).toHaveCount(2);
  // Only the settings that differ: the seeded runs differ in their suite alone.
  await expect(page.getByTestId('config-diff-row')).toHaveCount(1);
  await expect(page.getByTestId('config-diff-row')).toContainText(['suite']);
  await screenshot(page, 'compare-charts');
});

test('episode page: per-test results, the load error as the status, the candidate’s own output', async ({ page }) => {
  const { episodeId } = await withDb(async (sql) => {
    const { suiteId, taskId } = await seedSuiteAndTask(sql, `ux-episode-${tag}`);
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at, finished_at)
      values (${`ux-episode-run-${tag}`}, 'completed', ${sql.json({ ...defaultRunConfig, suite: `ux-episode-${tag}` })}, ${suiteId}, 1, 1, 1, now() - interval '2 minutes', now())
      returning id`;
    assert(run !== undefined, 'no run');
    const [ep] = await sql`
      insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, end_reason, started_at, finished_at)
      values (${run.id}, ${taskId}, 0, 0, 0, 'scored', 'bwrap', 'sha256:e2e', 3, 'solved', now() - interval '1 minute', now()) returning id`;
    assert(ep !== undefined, 'no episode');
    // What workers/rl/episode.ts stores: the observation the policy saw, the sandbox's exit; an
    // older row's stdout still carried a harness protocol line.
    const protocol = '\u001eCRUCIBLE-0123456789abcdef0123456789abcdef {"load_error":"SyntaxError"}';
    await sql`insert into turns (episode_id, index, action, observation, stdout, stderr, exit_code, exec_status) values
      (${ep.id}, 0, ${'    return a +'}, 'error: SyntaxError: invalid syntax (candidate.py, line 3)', ${`loading…\n${protocol}`}, '', 0, 'ok'),
      (${ep.id}, 1, ${'    return a - b'}, '0/2 passed; returned -1', 'trying', '', 0, 'ok'),
      (${ep.id}, 2, ${'    return a + b'}, '2/2 passed', '', '', 0, 'ok')`;
    await sql`insert into rewards (episode_id, value, components, env_hash, harness_version)
      values (${ep.id}, 1, ${sql.json({ passRate: 1, testsPassed: 2, testsTotal: 2, style: 1, efficiency: 1 })}, 'sha256:e2e', 'harness-e2e')`;
    return { episodeId: ep.id as string };
  });
  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/episodes/${episodeId}`);
  const turns = page.getByTestId('turn');
  await expect(turns).toHaveCount(3);

  const t0 = turns.nth(0);
  await expect(t0.getByTestId('turn-status')).toHaveText('did not load: SyntaxError: invalid syntax (candidate.py, line 3)');
  await expect(t0).not.toContainText('exit 0 ok');
  await expect(t0.getByTestId('load-error')).toContainText('The program did not load');
  await expect(t0.getByTestId('test-row')).toHaveText([/add\(2, 3\).*5.*no.*not run: SyntaxError/, /add\(1, 1\).*2.*no.*not run: SyntaxError/]);
  await expect(t0.getByTestId('stdout')).toHaveText('loading…');
  await expect(t0).toContainText('1 harness protocol line hidden');

  const t1 = turns.nth(1);
  await expect(t1.getByTestId('turn-status')).toHaveText('0/2 tests passed');
  await expect(t1.getByTestId('test-row').first()).toContainText('returned -1');

  const t2 = turns.nth(2);
  await expect(t2.getByTestId('turn-status')).toHaveText('2/2 tests passed');
  await expect(t2.getByTestId('test-row')).toHaveText([/add\(2, 3\).*yes.*passed/, /add\(1, 1\).*yes.*passed/]);
  await screenshot(page, 'episode');
});

test('launch form: runtimes are this deployment’s (defaults named, missing ones marked), a quota no host holds is refused inline', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/runs/new');
  const routine = page.locator('select[name="isolation.routine"]');
  // a new run starts on the deployment default, which names the runtime the launch will pick
  await expect(routine).toHaveValue('');
  // (named once a sandbox worker has registered and probed its runtimes: on a fresh server, seconds)
  await expect(routine.locator('option').first()).toHaveText(/^deployment default \((gvisor|bwrap)\)$/, { timeout: 60_000 });
  // kata is not installed on these hosts: shown, marked, not selectable
  const kata = routine.locator('option[value="oci:kata-runtime"]');
  await expect(kata).toHaveText('oci:kata-runtime (not installed)');
  await expect(kata).toBeDisabled();
  const cpus = page.locator('input[name="quota.cpus"]');
  await cpus.fill('64');
  await cpus.blur();
  await expect(page.locator('#field-quota\\.cpus-error')).toHaveText(/^At most \d+: no sandbox host has more vCPUs/);
  await screenshot(page, 'launch-form-runtimes');
});
