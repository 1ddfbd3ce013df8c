import assert from 'node:assert';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { resolveEnvironment } from '@/lib/sandbox/env/env-builtin';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, seedSuiteAndTask, signIn } from './support';

const tag = Date.now().toString(36);
const reviewer = { username: `kay-review-${tag}`, password: 'keyboard-pass-123' };
const runName = `review-run-${tag}`;
const reasons = ['boundary:partial_pass', 'anomaly:task_outlier', 'uniform'];

/**
 * A finished run with blind review at rate 1 and three scored episodes, each with turns,
 * a reward and a review item (what the sampler writes as episodes are scored). The test
 * reviews this run's own queue (/review?run=ID), which hands out boundary and anomaly items
 * before uniform ones, then the oldest: exactly these three, in this order.
 */
async function seedReviewRun() {
  const sql = database();
  try {
    // The app's own default environment (built now if the app has not yet), so the diagnosis
    // can re-run the code both on the baseline and on the scored hash.
    const envHash = resolveEnvironment('default', env.envStore ?? path.join(env.dataDir, 'envs')).hash;
    const { suiteId, taskId } = await seedSuiteAndTask(sql, `review-suite-${tag}`);
    const config = { ...defaultRunConfig, suite: `review-suite-${tag}`, review: { ...defaultRunConfig.review, rate: 1, blind: true, doubleReviewShare: 0 } };
    const [run] = await sql`
      insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at, finished_at)
      values (${runName}, 'completed', ${sql.json(config)}, ${suiteId}, 1, 3, 3, now() - interval '5 minutes', now()) returning id`;
    assert(run !== undefined, 'no row found');
    const ids: string[] = [];
    const episodeIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [ep] = await sql`
        insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, end_reason, started_at, finished_at)
        values (${run.id}, ${taskId}, 0, 0, ${i}, 'scored', 'bwrap', ${envHash}, 2, 'tests_passed', now() - interval '1 minute', now()) returning id`;
      assert(ep !== undefined, 'no row found');
      // turns store what the policy wrote: the body under the prompt's header, as real episodes do
      await sql`insert into turns (episode_id, index, action, stdout, stderr, exit_code, exec_status)
        values (${ep.id}, 0, ${'    return a - b  # wrong'}, 'FAILED: expected 5, got -1', 'AssertionError', 1, 'ok'),
               (${ep.id}, 1, ${'    return a + b'}, 'ran 2 tests: 2 passed', '', 0, 'ok')`;
      await sql`insert into rewards (episode_id, value, components, env_hash, harness_version)
        values (${ep.id}, ${[0.5, 0.1, 1][i]!}, ${sql.json({ passRate: [0.5, 0.1, 1][i]!, testsPassed: [1, 0, 2][i]!, testsTotal: 2, ...(i === 2 ? { style: 1, efficiency: 1 } : {}) })}, ${envHash}, 'harness-e2e')`;
      const [rev] = await sql`insert into reviews (episode_id, run_id, slot, sample_reason, created_at)
        values (${ep.id}, ${run.id}, 0, ${reasons[i]!}, now() - interval '20 years' + ${i} * interval '1 second') returning id`;
      assert(rev !== undefined, 'no row found');
      ids.push(rev.id);
      episodeIds.push(ep.id);
    }
    return { runId: run.id as string, reviewIds: ids, episodeIds, envHash };
  } finally {
    await sql.end();
  }
}

const item = (page: Page) => page.getByTestId('review-item');

test('a reviewer reviews three items with the keyboard alone; verdicts persist; a false negative opens a diagnosis', async ({ page }) => {
  test.setTimeout(120_000);
  const seeded = await seedReviewRun();

  // The admin creates the reviewer through the API (the users page is covered elsewhere).
  await signIn(page, 'admin', env.adminPassword);
  const res = await page.request.post('/api/trpc/users.create', { data: { json: { ...reviewer, role: 'reviewer' } } });
  expect(res.ok(), await res.text()).toBe(true);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);

  await signIn(page, reviewer.username, reviewer.password);
  await page.goto('/review');
  await expect(page.getByRole('heading', { name: 'Review', level: 1 })).toBeVisible();
  await expect(page.getByTestId('shortcuts').first()).toContainText('skip');
  // Blind items' sample reasons are withheld in the queue too (most are computed from the reward).
  await expect(page.getByTestId('queue-row').filter({ hasText: 'withheld until your verdict (blind review)' }).first()).toBeVisible();
  await expect(page.getByTestId('queue-row').filter({ hasText: 'boundary:partial_pass' })).toHaveCount(0);
  // Runs are named by id here, not name: the queue page should not undo blind review.
  await expect(page.getByTestId('coverage-flag')).toContainText(`${seeded.runId.slice(0, 8)} 0/3`);
  await expect(page.getByTestId('guidelines')).toContainText('Watch for bias');
  // The flag links each run to its own queue (not to the run page, which would undo blind review).
  await page
    .getByTestId('coverage-flag')
    .getByRole('link', { name: seeded.runId.slice(0, 8) })
    .click();
  await expect(page).toHaveURL(new RegExp(`/review\\?run=${seeded.runId}$`));
  await expect(page.getByTestId('review-scope')).toHaveText(seeded.runId.slice(0, 8));
  await expect(page.getByTestId('queue-row')).toHaveCount(3);

  // From here on: keyboard only.
  // Skip moves on to the next item each time; once only skipped items are left it says so,
  // and j goes through them again.
  await page.keyboard.press('j');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[0]!);
  await page.keyboard.press('s');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[1]!);
  await page.keyboard.press('s');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[2]!);
  await page.keyboard.press('s');
  await expect(page.getByTestId('review-message')).toHaveText('Only the 3 items you skipped are left. Press j to go through them again.');
  await expect(item(page)).toHaveCount(0);

  // 1: correct. Blind review hides the run and the automatic reward until the verdict.
  await page.keyboard.press('j');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[0]!);
  // The sample reason too: most reasons are computed from the reward (server/reviews/blind.ts).
  await expect(page.getByTestId('sample-reason')).toHaveText('withheld until your verdict (blind review)');
  await expect(page.getByTestId('run-name')).toHaveText('hidden until you give a verdict');
  await expect(page.getByTestId('auto-reward')).toHaveText('hidden until you give a verdict');
  // The reward components are the reward in parts: a blind item has no such section until its verdict.
  await expect(page.getByRole('region', { name: 'Reward components' })).toHaveCount(0);
  // Nor can the episode be read around the item while it is pending (the page never names it).
  const episodeGet = () => page.request.get(`/api/trpc/episodes.get?input=${encodeURIComponent(JSON.stringify({ json: { id: seeded.episodeIds[0] } }))}`);
  expect((await episodeGet()).status()).toBe(403);
  await expect(page.getByTestId('turn')).toHaveCount(2);
  await expect(page.getByTestId('action').first().locator('[data-token="keyword"]').first()).toHaveText('return');
  await expect(page.getByTestId('env-hash')).toHaveText(seeded.envHash);
  await page.keyboard.press('1');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('saved-verdict')).toHaveText('saved: correct');
  await expect(page.getByTestId('run-name')).toHaveText(runName);
  await expect(page.getByTestId('sample-reason')).toHaveText(reasons[0]!);
  await expect(page.getByTestId('auto-reward')).toHaveText('0.5');
  await expect(page.getByTestId('reward-components')).toContainText('passRate');
  expect((await episodeGet()).status()).toBe(200);

  // 2: false negative with a note (typed shortcuts must not fire there) and a corrected reward.
  await page.keyboard.press('j');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[1]!);
  await expect(page.getByTestId('run-name')).toHaveText('hidden until you give a verdict');
  await page.keyboard.press('2');
  await page.keyboard.press('n');
  const note = 'tests ran on a broken fixture; j k 1 4 s are just text here';
  await page.keyboard.type(note);
  await page.keyboard.press('Escape');
  await page.keyboard.press('r');
  await page.keyboard.type('1');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('saved-verdict')).toHaveText('saved: false_negative');
  await expect(page.getByLabel('Note')).toHaveValue(note);
  await expect(page.getByTestId('diagnosis')).toBeVisible();

  // 3: unclear.
  await page.keyboard.press('j');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[2]!);
  await page.keyboard.press('4');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('saved-verdict')).toHaveText('saved: unclear');
  // revealed, the reward is shown in parts: each component's weight (the run's defaults) and share, summing to the reward
  await expect(page.getByTestId('reward-components')).toContainText('weight');
  await expect(page.getByTestId('reward-sum')).toHaveText(/sum \(weight × value ÷ total weight\)\s*1$/);

  // Back to the false negative: still there after a reload, with its history and diagnosis.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Review', level: 1 })).toBeVisible();
  await expect(page.getByTestId('my-reviewed')).toHaveText('3');
  await page.keyboard.press('k');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[2]!);
  await page.keyboard.press('k');
  await expect(item(page)).toHaveAttribute('data-review-id', seeded.reviewIds[1]!);
  await expect(page.getByTestId('saved-verdict')).toHaveText('saved: false_negative');
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  await expect(page.getByTestId('history-row')).toContainText(note);
  // The job worker re-runs the final code on the baseline and the scored environment.
  await expect(page.getByTestId('diagnosis-status')).toHaveText(/done|failed/, { timeout: 60_000 });
  if ((await page.getByTestId('diagnosis-status').textContent()) === 'done') {
    await expect(page.getByTestId('rerun-baseline')).toBeVisible();
    await expect(page.getByTestId('rerun-scored')).toBeVisible();
    await expect(page.getByTestId('rerun-baseline').getByTestId('rerun-status')).not.toHaveText('—');
    await expect(page.getByTestId('rerun-scored').getByTestId('rerun-status')).not.toHaveText('—');
    // the final code is right (a false negative): re-scored as prompt + body, it passes every test
    await expect(page.getByTestId('rerun-baseline')).toContainText(/tests passed\s*2 \/ 2/);
    console.log(
      `[review] diagnosis: baseline ${await page.getByTestId('rerun-baseline').innerText()} | scored ${await page.getByTestId('rerun-scored').innerText()}`.replace(
        /\s+/g,
        ' ',
      ),
    );
  } else {
    throw new Error(`diagnosis failed: ${await page.getByTestId('diagnosis').textContent()}`);
  }

  // And in the database.
  const sql = database();
  try {
    const rows = await sql`select id, verdict, corrected_reward, note from reviews where id in ${sql(seeded.reviewIds)}`;
    const byId = new Map(rows.map((r) => [r.id as string, r]));
    expect(seeded.reviewIds.map((id) => byId.get(id)?.verdict)).toEqual(['correct', 'false_negative', 'unclear']);
    expect(byId.get(seeded.reviewIds[1]!)?.corrected_reward).toBe(1);
    expect(byId.get(seeded.reviewIds[1]!)?.note).toBe(note);
  } finally {
    await sql.end();
  }
});
