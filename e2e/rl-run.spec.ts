import { expect, test, type Page } from '@playwright/test';
import { env, signIn } from './support';

// The RL loop for real, through the browser: the jobs worker that `npm start` runs trains a tiny
// run on the built-in suite (SFT warm start and held-out size are shrunk by scripts/e2e.ts).
test.describe.configure({ mode: 'serial' });

const tag = Date.now().toString(36);
const operator = { username: `rl-op-${tag}`, password: 'rl-operator-pass-123' };
const runName = `rl-tiny-${tag}`;
const otherRunName = `rl-other-${tag}`;
let runId = '';

async function launchTinyRun(page: Page, name: string, opts: { iterations: string; algorithm?: 'grpo' | 'ppo' }) {
  await page.goto('/runs');
  await page.getByRole('link', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/new$/);
  await page.getByLabel('Run name').fill(name);
  if (opts.algorithm) await page.getByLabel('Algorithm').selectOption(opts.algorithm);
  await expect(page.getByLabel('Task suite')).toHaveValue('builtin');
  await page.getByLabel('Iterations').fill(opts.iterations);
  await page.getByLabel('Tasks per iteration').fill('2');
  await page.getByLabel('Group size').fill('2');
  await page.getByLabel('Max turns per episode').fill('1');
  await page.getByLabel('Concurrent episodes').fill('2');
  await page.getByRole('button', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 60_000 }); // a launch before any sandbox worker registered waits for the runtime probe
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  return page.url().split('/').pop()!;
}

test('admin creates an operator for the RL run', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/admin/users');
  const form = page.getByRole('form', { name: 'Create user' });
  await form.getByLabel('Username').fill(operator.username);
  await form.getByLabel('Initial password').fill(operator.password);
  await form.getByLabel('Role').selectOption('operator');
  await form.getByRole('button', { name: 'Create user' }).click();
  await expect(page.getByRole('status').filter({ hasText: `${operator.username} (operator) created` })).toBeVisible();
});

test('operator launches a tiny run in the browser and watches it train to completion', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page, operator.username, operator.password);
  runId = await launchTinyRun(page, runName, { iterations: '2' });
  await expect(page.getByTestId('config-iterations')).toHaveText('2');

  // running from its first job (SFT warm start + baseline held-out eval, then training) → completed, live on the page.
  // The running phase of so small a run can fall between two polls, so the timeline proves it.
  const status = page.getByTestId('run-status');
  await expect(status).toHaveText(/running|completed/, { timeout: 150_000 });
  await expect(status).toHaveText('completed', { timeout: 240_000 });
  const overview = page.getByRole('region', { name: 'Overview' });
  await expect(overview).toContainText('2 / 2');
  await expect(overview).toContainText('8 / 8');

  // The loop's metrics, charted: reward first, held-out pass@1 from step 0, then the rest by section.
  const metrics = page.getByRole('region', { name: 'Metrics' });
  const chart = (name: string) => metrics.locator(`[data-testid="metric-chart"][data-metric="${name}"]`);
  await expect(chart('reward_mean')).toBeVisible();
  await expect(chart('reward_mean')).toContainText('last');
  await expect(chart('reward_mean')).toContainText('@ 2');
  await expect(chart('heldout_pass_at_1')).toBeVisible();
  for (const name of ['kl', 'entropy', 'episode_time_ms', 'infra_failed_rate', 'pass_rate']) await expect(chart(name)).toBeVisible();
  const sectionTitles = await metrics.getByTestId('metric-section').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  expect(sectionTitles.slice(0, 2)).toEqual(['Reward and pass rate', 'Policy update']);
  // The reward's spread lives in the reward chart, not in charts of its own.
  await expect(chart('reward_std')).toHaveCount(0);
  // recharts drew lines (an svg path per series) rather than an empty frame.
  await expect(chart('reward_mean').locator('path.recharts-curve').first()).toBeAttached();

  const events = page.getByTestId('run-event');
  await expect(events.filter({ hasText: 'started: preparing policy version 0' })).toHaveCount(1);
  await expect(events.filter({ hasText: 'policy version 0 ready' })).toHaveCount(1);
  await expect(events.filter({ hasText: 'iteration 1 of 2 trained' })).toHaveCount(1);
  await expect(events.filter({ hasText: 'completed' }).first()).toBeVisible();

  // One episode, opened from the run's table: the policy's code and what the sandbox answered.
  const rows = page.getByTestId('episode-row');
  await expect(rows).toHaveCount(8);
  await rows.first().getByRole('link').first().click();
  await expect(page).toHaveURL(/\/episodes\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('link', { name: runName })).toBeVisible();
  const turn = page.getByTestId('turn').first();
  await expect(turn).toContainText('Turn 0');
  await expect(turn.getByTestId('action')).not.toBeEmpty();
  await expect(turn.getByTestId('observation')).not.toBeEmpty();
  await expect(turn.getByTestId('exit-code')).toHaveText(/^exit -?\d+$/);
});

test('two runs compared: ticked on /runs, one chart per metric with a line per run', async ({ page }) => {
  test.setTimeout(300_000);
  expect(runId, 'the previous test launched the run').not.toBe('');
  await signIn(page, operator.username, operator.password);
  const otherId = await launchTinyRun(page, otherRunName, { iterations: '1', algorithm: 'ppo' });
  await expect(page.getByTestId('run-status')).toHaveText('completed', { timeout: 240_000 });

  await page.goto('/runs');
  const compare = page.getByRole('button', { name: /^Compare/ });
  await expect(compare).toBeDisabled();
  await page.getByLabel(`Compare ${runName}`).check();
  await expect(compare).toBeDisabled();
  await page.getByLabel(`Compare ${otherRunName}`).check();
  await expect(compare).toHaveText('Compare (2)');
  await compare.click();
  // A client-side navigation that renders every chart before it commits: slow on two busy cores.
  await expect(page).toHaveURL(new RegExp(`/runs/compare\\?ids=${runId},${otherId}$`), { timeout: 45_000 });

  await expect(page.getByTestId('compared-run')).toHaveCount(2, { timeout: 30_000 });
  const reward = page.locator('[data-testid="metric-chart"][data-metric="reward_mean"]');
  await expect(reward).toBeVisible();
  // The legend names both runs; one drawn line each.
  await expect(reward.getByTestId('legend-item')).toHaveCount(2);
  await expect(reward.getByRole('list', { name: 'reward_mean series' })).toContainText(runName);
  await expect(reward.getByRole('list', { name: 'reward_mean series' })).toContainText(otherRunName);
  await expect(reward.locator('path.recharts-curve')).toHaveCount(2);
  await expect(page.locator('[data-testid="metric-chart"][data-metric="heldout_pass_at_1"]')).toBeVisible();

  // The run page's picker leads to the same comparison.
  await page.goto(`/runs/${runId}`);
  await page.getByLabel('Compare with').selectOption(otherId);
  await expect(page).toHaveURL(new RegExp(`/runs/compare\\?ids=${runId},${otherId}$`), { timeout: 45_000 });
  await expect(page.getByTestId('compared-run')).toHaveCount(2, { timeout: 30_000 });

  // An unknown id is named, not silently dropped.
  const ghost = '00000000-0000-4000-8000-00000000beef';
  await page.goto(`/runs/compare?ids=${runId},${ghost}`);
  await expect(page.getByText('Could not compare these runs')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(ghost)).toBeVisible();
});
