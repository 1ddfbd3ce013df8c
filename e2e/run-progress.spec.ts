import assert from 'node:assert';
import { expect, test } from '@playwright/test';
import { defaultRunConfig } from '@/core/run-config';
import { phaseMessage, type PhaseEventData } from '@/core/run-phases';
import { database, env, seedSuiteAndTask, signIn, screenshotAtWidths } from './support';

/**
 * Issue 17, run start-up and progress: a new run says what it is doing from the first
 * second (SFT warm start, held-out evaluation, iteration k of n sampling / learning) with
 * episodes done/total and an episode-counting bar, through the real loop `npm start` runs
 * (SFT and held-out sizes shrunk by scripts/e2e.ts). Screenshots at 1440 and 1024 px go to
 * $TMPDIR/crucible-e2e-screenshots/ (copies in docs/screenshots/).
 */

const tag = Date.now().toString(36);
// outside test-results/, which every Playwright run (another spec's too) empties at its start
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
  await expect(phase).toHaveText(/SFT warm start \(20 steps\)|held-out evaluation of (the initialisation|policy v0) \(2 tasks\)/, { timeout: 60_000 });
  await expect(page.getByTestId('run-progress')).toContainText('overall: 0 / 8 episodes');
  await screenshotAtWidths(page, 'run-progress-startup');

  // the iterations: k of n with this iteration's episodes, and a bar that counts episodes
  await expect(phase).toHaveText(/^iteration [12] of 2: (sampling 4 episodes|learning \(policy update\)|held-out evaluation of policy v\d)/, {
    timeout: 150_000,
  });
  await expect(page.getByTestId('run-iteration')).toHaveText(/Iteration [12] of 2/);
  await expect(page.getByTestId('iteration-episodes')).toHaveText(/this iteration: \d \/ 4 episodes done/);
  await expect(page.getByTestId('run-progress').getByRole('progressbar')).toBeVisible();
  await expect(page.getByTestId('run-eta')).toHaveText(/^ETA (≈|≥) \d+ (s|min)|^ETA: (after the first episodes|when this step ends)/);
  await screenshotAtWidths(page, 'run-progress-iteration');

  // to the end, where the bar is full and the events tell each phase
  await expect(phase).toHaveText('completed all 2 iterations', { timeout: 200_000 });
  await expect(page.getByTestId('overall-episodes')).toHaveText('overall: 8 / 8 episodes');
  await expect(page.getByTestId('run-progress').getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  // the bar's held-out segments: the initialisation, v0 and each iteration's version, all done
  const segments = page.getByTestId('progress-segment');
  await expect(segments.and(page.locator('[data-kind="heldout"]'))).toHaveCount(4);
  await expect(segments.and(page.locator('[data-state="done"]'))).toHaveCount(6);
  await expect(page.getByTestId('heldout-progress')).toHaveText('held-out: 4 / 4 evaluations done');
  const events = page.getByTestId('run-event');
  await expect(events.filter({ hasText: 'SFT warm start (20 steps) started' })).toHaveCount(1);
  await expect(events.filter({ hasText: /held-out evaluation of policy v0 \(2 tasks\) finished: pass@1/ })).toHaveCount(1);
  await expect(events.filter({ hasText: 'iteration 1 of 2: sampling 4 episodes started' })).toHaveCount(1);
  await expect(events.filter({ hasText: 'iteration 2 of 2: learning (policy update) started' })).toHaveCount(1);
});

/**
 * A run seeded as the RL loop leaves it part-way: v0 evaluated, iteration 1 sampled and
 * learned, and the held-out evaluation of policy v1 at task 2 of 4 (runs.phase_progress).
 * `heldout` is the run's own held-out settings (4 of the suite's 5 held-out tasks, pass@2).
 */
async function seedMidEvaluation() {
  const sql = database();
  try {
    const suite = `prog-${tag}`;
    const { suiteId } = await seedSuiteAndTask(sql, suite);
    for (let i = 0; i < 5; i++)
      await sql`insert into tasks (suite_id, external_id, language, prompt, entry_point, tests, split)
        values (${suiteId}, ${`held-${i}-${tag}`}, 'python', 'def f():\n', 'f', ${sql.json({ kind: 'io', cases: [{ input: [], expected: null }] })}, 'heldout')`;
    const config = { ...defaultRunConfig, suite, iterations: 3, tasksPerIteration: 2, groupSize: 4, heldout: { tasks: 4, passAtK: 2, passAtKEvery: 2 } };
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at)
      values (${`prog-mid-${tag}`}, 'running', ${sql.json(config)}, ${suiteId}, 0, 24, 8, now() - interval '5 minutes') returning id`;
    assert(run !== undefined, 'no run');
    const t0 = Date.now() - 300_000;
    const key = (subject: string, iteration?: number) => `job:9:1:heldout_eval:started:${iteration ?? '-'}:${subject}`;
    const events: [number, Omit<PhaseEventData, 'iterations'>][] = [
      [0, { phase: 'heldout_eval', state: 'started', subject: 'the initialisation', tasks: 4, key: key('the initialisation') }],
      [10, { phase: 'heldout_eval', state: 'finished', subject: 'the initialisation', tasks: 4, passAt1: 0, key: 'i-f' }],
      [11, { phase: 'sft', state: 'started', steps: 20, key: 's-s' }],
      [40, { phase: 'sft', state: 'finished', steps: 20, key: 's-f' }],
      [41, { phase: 'heldout_eval', state: 'started', subject: 'policy v0', tasks: 4, key: key('policy v0') }],
      [80, { phase: 'heldout_eval', state: 'finished', subject: 'policy v0', tasks: 4, passAt1: 0.25, key: 'v0-f' }],
      [81, { phase: 'sampling', state: 'started', iteration: 0, episodes: 8, key: 'sampling:0' }],
      [200, { phase: 'learning', state: 'started', iteration: 0, key: 'l-0' }],
      [220, { phase: 'heldout_eval', state: 'started', subject: 'policy v1', iteration: 0, tasks: 4, key: key('policy v1', 0) }],
    ];
    const rows = events.map(([s, d]) => {
      const data = { iterations: 3, ...d };
      return { run_id: run.id as string, type: 'phase', actor: 'system:rl', message: phaseMessage(data), data, at: new Date(t0 + s * 1000) };
    });
    await sql`insert into run_events ${sql(rows, 'run_id', 'type', 'actor', 'message', 'data', 'at')}`;
    await sql`update runs set phase_progress = ${sql.json({ key: key('policy v1', 0), done: 2, total: 4 })} where id = ${run.id}`;
    return { runId: run.id as string, key: key('policy v1', 0) };
  } finally {
    await sql.end();
  }
}

test('the progress bar gives held-out evaluation its own segments: v0 and each iteration’s version, k / N tasks', async ({ page }) => {
  test.setTimeout(60_000);
  const { runId, key } = await seedMidEvaluation();
  await signIn(page, 'admin', env.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${runId}`);

  const bar = page.getByTestId('run-progress');
  const segments = bar.getByTestId('progress-segment');
  await expect(page.getByTestId('run-phase')).toHaveText(/^iteration 1 of 3: held-out evaluation of policy v1 \(4 tasks\): 2 \/ 4 tasks done/);
  // the initialisation, v0, then per iteration its training and the evaluation of the version it made
  const kinds = ['heldout', 'heldout', 'training', 'heldout', 'training', 'heldout', 'training', 'heldout'];
  await expect(segments).toHaveCount(kinds.length);
  expect(await segments.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual(kinds);
  expect(await segments.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))).toEqual([
    'done',
    'done',
    'done',
    'running',
    'pending',
    'pending',
    'pending',
    'pending',
  ]);
  // k / N on the running evaluation, from runs.phase_progress; the planned ones count the run's 4 held-out tasks
  const v1 = segments.nth(3);
  await expect(v1).toHaveAttribute('title', 'held-out evaluation of policy v1: 2 / 4 tasks');
  await expect(segments.nth(5)).toHaveAttribute('title', 'held-out evaluation of policy v2: 0 / 4 tasks (with pass@2)');
  await expect(page.getByTestId('heldout-progress')).toHaveText('held-out: 2 / 5 evaluations done · now held-out v1: 2 / 4 tasks');
  // the held-out work is in the bar's share: (init 4 + v0 4×3 + iteration 1's 8 + 2 of v1's 4) of 4 + 12 + 8 + 4 + 8 + 12 + 8 + 12
  await expect(bar.getByRole('progressbar')).toHaveAttribute('aria-valuenow', String(Math.floor(((4 + 12 + 8 + 2) / 68) * 100)));
  await screenshotAtWidths(page, 'run-progress-heldout');

  // the next task is evaluated: the page, polling, counts it
  const sql = database();
  try {
    await sql`update runs set phase_progress = ${sql.json({ key, done: 3, total: 4 })} where id = ${runId}`;
  } finally {
    await sql.end();
  }
  await expect(v1).toHaveAttribute('data-done', '3');
  await expect(page.getByTestId('heldout-progress')).toHaveText(/now held-out v1: 3 \/ 4 tasks/);
});
