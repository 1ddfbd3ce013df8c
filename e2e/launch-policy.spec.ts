import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { STORIES260K_DIR } from '@/test/models';
import { database, env, signIn } from './support';

/**
 * Issue 15: the launch form chooses the policy. stories260K is registered (over HTTP, as
 * e2e/models.spec.ts does), chosen in the form's Policy section under LoRA rank 4 on
 * q_proj and k_proj, and the created run's page shows that policy, linked to the model. The
 * section is screenshotted at 1440 and 1024 px into test-results/screenshots/ (copies in
 * docs/screenshots/launch-policy-*.png).
 */

const tag = Date.now().toString(36);
const model = `stories260K-launch-${tag}`;
const runName = `lora-${tag}`;

const trpcQuery = async (page: Page, proc: string) => {
  const res = await page.request.get(`/api/trpc/${proc}`, { timeout: 60_000 });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: unknown } } }).result.data.json;
};

/** test-results/screenshots/NAME-WIDTH.png of one element and a margin (under `--output DIR` when given). */
async function screenshot(page: Page, target: Locator, name: string) {
  const shots = path.join(test.info().project.outputDir, 'screenshots');
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300);
    // a margin around the element: a fieldset's legend sits across its top border
    const box = await target.boundingBox();
    if (!box) throw new Error(`${name}: the element is not visible`);
    const clip = { x: Math.max(0, box.x - 8), y: Math.max(0, box.y - 12), width: box.width + 16, height: box.height + 20 };
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), clip, fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

test('launch form: choose a registered model under LoRA, and the run page shows the policy', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin', env.adminPassword);

  // runs.launchOptions probes this host's sandbox runtimes until a sandbox worker has registered
  // (about 20 s, in a child process, then cached for a minute): pay that once here
  await trpcQuery(page, 'runs.launchOptions');

  // With no model registered the section says how to register one (only checkable on a fresh
  // app: other specs sharing this server may have imported models already).
  const before = (await trpcQuery(page, 'models.list')) as unknown[];
  await page.goto('/runs/new');
  const policy = page.getByRole('group', { name: 'Policy' });
  if (before.length === 0) await expect(policy.getByTestId('no-models-note')).toContainText('npx crucible models import DIR --name NAME');

  const imported = await page.request.post('/api/trpc/models.import', { data: { json: { name: model, dir: STORIES260K_DIR } } });
  expect(imported.ok(), await imported.text()).toBe(true);

  await page.goto('/runs/new');
  await page.getByLabel('Run name').fill(runName);
  const modelSelect = policy.getByLabel('Model', { exact: true });
  await expect(modelSelect).toHaveValue('');
  await expect(modelSelect.locator('option', { hasText: model })).toHaveCount(1);

  // PPO is open to a registered model (a value head is trained with it)
  await page.getByLabel('Algorithm').selectOption('ppo');
  await modelSelect.selectOption(model);
  await expect(page.locator('#field-algorithm-error')).toHaveCount(0);
  await page.getByLabel('Algorithm').selectOption('grpo');

  // the chosen model's facts, from models.list
  const facts = policy.getByTestId('policy-model-facts');
  await expect(facts).toContainText('LlamaForCausalLM');
  await expect(facts).toContainText('260K parameters (260,032)');
  await expect(facts).toContainText('F32');

  // LoRA is the default training; its settings start at the schema's defaults
  await expect(policy.getByLabel('LoRA adapter')).toBeChecked();
  await expect(policy.getByLabel('LoRA rank')).toHaveValue('8');
  await expect(policy.getByLabel('LoRA alpha')).toHaveValue('16');
  await expect(policy.locator('input[name="policy.lora.targetModules.q_proj"]')).toBeChecked();
  await expect(policy.locator('input[name="policy.lora.targetModules.v_proj"]')).toBeChecked();
  // full fine-tuning hides them
  await policy.getByLabel('Full fine-tuning').check();
  await expect(policy.getByLabel('LoRA rank')).toHaveCount(0);
  await policy.getByLabel('LoRA adapter').check();

  // readable inline errors: a rank out of range, no target module
  await policy.getByLabel('LoRA rank').fill('0');
  await policy.getByLabel('LoRA alpha').focus();
  await expect(page.locator('[id="field-policy.lora.rank-error"]')).toHaveText('Must be at least 1');
  await policy.getByLabel('LoRA rank').fill('4');
  await expect(page.locator('[id="field-policy.lora.rank-error"]')).toHaveCount(0);
  await policy.locator('input[name="policy.lora.targetModules.q_proj"]').uncheck();
  await policy.locator('input[name="policy.lora.targetModules.v_proj"]').uncheck();
  await expect(page.locator('[id="field-policy.lora.targetModules-error"]')).toContainText('LoRA needs at least one target module');
  await policy.locator('input[name="policy.lora.targetModules.q_proj"]').check();
  await policy.locator('input[name="policy.lora.targetModules.k_proj"]').check();
  await expect(page.locator('[id="field-policy.lora.targetModules-error"]')).toHaveCount(0);
  // float32 unless mixed precision is chosen
  await expect(policy.getByLabel('Precision')).toHaveValue('fp32');
  await policy.getByLabel('Precision').selectOption('bf16');
  await screenshot(page, policy, 'launch-policy');

  await page.getByLabel('Iterations').fill('1');
  // the built-in suite's I/O tasks need the byte model: the launch is refused, saying so
  await page.getByLabel('Task suite').selectOption('builtin');
  await page.getByRole('button', { name: 'Launch run' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'runs text and repository tasks' })).toBeVisible();
  await page.getByLabel('Task suite').selectOption('stories');
  await page.getByRole('button', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 60_000 }); // a launch before any sandbox worker registered waits for the runtime probe
  const runId = page.url().split('/').pop()!;
  // No need to train it here: cancel it, so other specs keep the CPUs (it may have completed its one iteration already)
  const cancel = await page.request.post('/api/trpc/runs.cancel', { data: { json: { id: runId } } });
  if (!cancel.ok()) expect(await cancel.text()).toMatch(/cannot be cancelled/);
  await expect(page.getByTestId('run-status')).toHaveText(/cancelled|completed/);

  const expected = `${model} · LoRA r=4 α=16 on q_proj, k_proj · bf16 mixed precision`;
  const overview = page.getByTestId('overview-policy');
  await expect(overview).toHaveText(expected);
  await expect(overview.getByRole('link', { name: model })).toHaveAttribute('href', `/models/${model}`);
  await expect(page.getByTestId('config-policy')).toHaveText(expected);

  const sql = database();
  try {
    const [row] = await sql`select config from runs where id = ${runId}`;
    expect(row!.config).toMatchObject({
      algorithm: 'grpo',
      policy: { kind: 'hf', model, training: 'lora', precision: 'bf16', lora: { rank: 4, alpha: 16, targetModules: ['q_proj', 'k_proj'] } },
    });
  } finally {
    await sql.end();
  }

  // the link opens the model's page
  await overview.getByRole('link', { name: model }).click();
  await expect(page.getByRole('heading', { name: model })).toBeVisible();
});
