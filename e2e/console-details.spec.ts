import { expect, test } from '@playwright/test';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, signIn } from './support';

// Small things users hit (issue 37, §3 and §5): a mouse wheel over a focused number field must
// not change what was typed (a typed 120 became 119 and was launched), and the app has an icon.

test('launch form: the mouse wheel over a focused number field leaves the typed value', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/runs/new');
  const iterations = page.getByLabel('Iterations');
  await iterations.fill('120');
  await iterations.focus();
  await iterations.hover();
  await page.mouse.wheel(0, 200);
  // the wheel takes the focus off the field, so no browser steps it (Chromium here does not step a
  // number field on the wheel at all; Firefox and older Chrome did): it scrolls the page instead
  await expect(iterations).not.toBeFocused();
  await page.mouse.wheel(0, -200);
  await expect(iterations).toHaveValue('120');
  // the keyboard still steps it, deliberately
  await iterations.focus();
  await page.keyboard.press('ArrowUp');
  await expect(iterations).toHaveValue('121');
});

test('the app has an icon: linked from every page and served', async ({ page }) => {
  await page.goto('/login');
  const href = await page.locator('link[rel="icon"]').first().getAttribute('href');
  expect(href).toBeTruthy();
  const res = await page.request.get(href!);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('image/svg+xml');
});

test('on a phone the navigation folds into a menu: the page does not scroll sideways', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/runs');
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('link', { name: 'Models' })).toHaveCount(0);
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await page.getByRole('link', { name: 'Models' }).click();
  await expect(page).toHaveURL(/\/models$/);
  await expect(menu).toHaveAttribute('aria-expanded', 'false'); // closed by navigating
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // a desktop keeps the links in the bar, no menu button
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden();
  await expect(page.getByRole('link', { name: 'Resources' })).toBeVisible();
});

test('launch form: a live cost summary, held-out settings per run, and a warning when concurrency outgrows the cluster', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/runs/new');
  // settings only repository tasks read are not offered for the built-in (function) suite
  await expect(page.getByLabel('Repository reward')).toHaveCount(0);
  await expect(page.getByLabel('FAIL_TO_PASS weight (repository tasks)')).toHaveCount(0);
  const cost = page.getByTestId('launch-cost');
  await page.getByLabel('Tasks per iteration').fill('8');
  await page.getByLabel('Group size').fill('4');
  await page.getByLabel('Iterations').fill('10');
  await expect(cost.getByTestId('cost-episodes')).toContainText('32 training episodes per iteration, 320 in all');
  await page.getByLabel('Also launch a control arm').check();
  await expect(cost.getByTestId('cost-episodes')).toContainText('×2 with the control arm: 640');
  await page.getByLabel('Held-out tasks per version').fill('3');
  await page.getByLabel('pass@k samples (k)').fill('2');
  await page.getByLabel('pass@k every (versions)').fill('5');
  await expect(cost.getByTestId('cost-heldout')).toContainText('11 policy versions (v0 and one per iteration), each on 3 held-out task(s); pass@2');
  await expect(cost.getByTestId('cost-heldout')).toContainText('on 3 of them'); // v0, 5, 10
  // this machine's sandbox host has a few vCPUs: 64 concurrent 1-vCPU episodes do not fit
  await page.getByLabel('Concurrent episodes').fill('64');
  await page.getByLabel('vCPUs', { exact: true }).fill('1');
  await expect(cost.getByTestId('cost-warning').first()).toContainText(
    /64 concurrent episode\(s\) per arm × 1 vCPUs = 128 vCPUs, but the 1 sandbox host\(s\) have \d+/,
  );
});

test('a run with a control arm shows RL − control per iteration, with n and a 95% interval', async ({ page }) => {
  const sql = database();
  const config = { ...defaultRunConfig, iterations: 2, tasksPerIteration: 2, groupSize: 4 };
  const name = `arms-${Date.now().toString(36)}`;
  const [main] = await sql`insert into runs (name, status, config) values (${name}, 'completed', ${sql.json(config)}) returning id`;
  const [control] =
    await sql`insert into runs (name, status, config, control_of) values (${`${name}-control`}, 'completed', ${sql.json({ ...config, learningRate: 0 })}, ${main!.id}) returning id`;
  const put = (run: string, metric: string, step: number, value: number) =>
    sql`insert into metric_samples (run_id, source, name, step, value) values (${run}, 'rl', ${metric}, ${step}, ${value})`;
  await put(main!.id, 'reward_mean', 1, 0.6);
  await put(main!.id, 'reward_std', 1, 0.4);
  await put(control!.id, 'reward_mean', 1, 0.4);
  await put(control!.id, 'reward_std', 1, 0.3);
  await sql.end();
  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/runs/${main!.id}`);
  const diff = page.getByTestId('arm-difference');
  await diff.getByText(/RL − control mean reward per iteration \(n = 8 episodes per arm per iteration\)/).click();
  await expect(diff.getByRole('table', { name: 'RL minus control' })).toContainText('+0.2 ± 0.346');
});
