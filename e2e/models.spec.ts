import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { STORIES260K_DIR } from '@/test/models';
import { env, signIn, trpc } from './support';

/**
 * Issue 15 (bring your own model): /models lists registered Hugging Face models and a model's
 * page shows its architecture, parameters, tokenizer, hashes and a chat-template preview.
 * stories260K is imported through the `models.import` procedure over HTTP (the console's host
 * reads the directory), once as shipped (no chat template) and once with a template added.
 * Screenshots at 1440 and 1024 px go to test-results/screenshots/ (copies in docs/screenshots/).
 */

const tag = Date.now().toString(36);

/** test-results/screenshots/NAME-WIDTH.png (under `--output DIR` when given: other runs clean test-results/ when they start). */
async function screenshot(page: Page, name: string) {
  const shots = path.join(test.info().project.outputDir, 'screenshots');
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

test('models: import stories260K, list it, and show its details and chat-template preview', async ({ page }) => {
  test.setTimeout(120_000);
  const chatDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-e2e-model-'));
  try {
    fs.cpSync(STORIES260K_DIR, chatDir, { recursive: true });
    const tcFile = path.join(chatDir, 'tokenizer_config.json');
    const tc = JSON.parse(fs.readFileSync(tcFile, 'utf8')) as Record<string, unknown>;
    tc.chat_template =
      "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}{{ eos_token }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}";
    fs.writeFileSync(tcFile, JSON.stringify(tc));

    await signIn(page, 'admin', env.adminPassword);
    const plain = `stories260K-${tag}`;
    const chat = `stories-chat-${tag}`;
    await trpc(page, 'models.import', { name: plain, dir: STORIES260K_DIR });
    await trpc(page, 'models.import', { name: chat, dir: chatDir });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    await expect(page).toHaveURL(/\/models$/);
    const row = page.getByTestId('model-row').filter({ hasText: plain });
    await expect(row).toContainText('LlamaForCausalLM');
    await expect(row).toContainText('260K');
    await expect(row).toContainText('F32');
    await expect(row).toContainText('none');
    await expect(page.getByTestId('model-row').filter({ hasText: chat })).toContainText('yes');
    await screenshot(page, 'models');

    await row.getByRole('link', { name: plain }).click();
    await expect(page.getByRole('heading', { name: plain })).toBeVisible();
    const model = page.getByRole('region', { name: 'Model' });
    await expect(model).toContainText('260K (260,032)');
    await expect(model).toContainText('LlamaForCausalLM');
    const tokenizer = page.getByRole('region', { name: 'Tokenizer' });
    await expect(tokenizer).toContainText('512');
    await expect(page.getByTestId('weights-sha256')).toHaveText(sha256(path.join(STORIES260K_DIR, 'model.safetensors')));
    await expect(page.getByTestId('tokenizer-sha256')).toHaveText(sha256(path.join(STORIES260K_DIR, 'tokenizer.json')));
    await expect(page.getByRole('table', { name: 'Files' })).toContainText('model.safetensors');
    await expect(page.getByTestId('no-chat-template')).toBeVisible();
    await expect(model).toContainText('none: no chat template, so no agent runs');

    await page.goto(`/models/${chat}`);
    const preview = page.getByTestId('chat-preview');
    await expect(preview).toContainText('<s><|system|>\nYou are a helpful assistant.</s>');
    await expect(preview).toContainText('<|user|>\nNow make it rhyme.</s>\n<|assistant|>');
    await expect(page.getByRole('region', { name: 'Model' })).toContainText('Tool calls');
    await expect(page.getByRole('region', { name: 'Model' })).toContainText('hermes format (from its chat template');
    await screenshot(page, 'model-detail');

    await page.goto('/models/no-such-model');
    await expect(page.getByRole('alert').filter({ hasText: 'Could not load the model' })).toContainText('no model named "no-such-model"');
  } finally {
    fs.rmSync(chatDir, { recursive: true, force: true });
  }
});

test('models: an operator imports a model from a server path in the console; its page lists the runs that use it', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/models');
  const form = page.getByTestId('import-model');
  await form.locator('summary').click();
  // the form says where the server may read (CRUCIBLE_IMPORT_ROOTS)
  await expect(form).toContainText(path.dirname(STORIES260K_DIR));
  // outside the import roots: refused, with the reason
  await page.getByLabel('Name').fill(`nope-${tag}`);
  await page.getByLabel('Directory on the server').fill('/etc');
  await form.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-error')).toContainText('CRUCIBLE_IMPORT_ROOTS');
  const name = `console-${tag}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Directory on the server').fill(STORIES260K_DIR);
  await form.getByRole('button', { name: 'Import' }).click();
  await expect(page).toHaveURL(new RegExp(`/models/${name}$`), { timeout: 60_000 });
  await expect(page.getByRole('heading', { name })).toBeVisible();
  await expect(page.getByTestId('model-no-runs')).toBeVisible();

  // a run on it (created over the API, then cancelled: only its row matters here)
  const run = (await trpc(page, 'runs.create', { name: `uses-${tag}`, config: { suite: 'stories', policy: { kind: 'hf', model: name } } })) as { id: string };
  await trpc(page, 'runs.cancel', { id: run.id });
  await page.reload();
  const row = page.getByTestId('model-run-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`uses-${tag}`);
  await expect(row.getByRole('link', { name: `uses-${tag}` })).toHaveAttribute('href', `/runs/${run.id}`);
});
