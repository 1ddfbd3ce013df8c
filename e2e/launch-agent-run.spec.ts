import { expect, test } from '@playwright/test';
import { repoSuiteJsonl } from '@/lib/agent/suite/repo-suite';
import { database, env, signIn } from './support';

// The launch form on a suite of repository tasks: the agent's tool set, budgets and system prompt
// appear only for such a suite, submit cannot be unchecked, and the run is created with the choices.
const tag = Date.now().toString(36);
const suite = `repo-e2e-${tag}`;
const runName = `agent-${tag}`;

test('launch form: a repository suite shows the tool-set choice, and the run gets the chosen tools (submit always)', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  const imported = await page.request.post(`/api/tasks/import?suite=${suite}&format=crucible-repo`, {
    headers: { 'content-type': 'application/x-ndjson' },
    data: repoSuiteJsonl(),
  });
  expect(imported.status(), await imported.text()).toBe(200);

  await page.goto('/runs/new');
  await page.getByLabel('Run name').fill(runName);
  // the suite field becomes a select once the suites are loaded
  await expect(page.locator('select[name="suite"]')).toHaveValue('builtin');
  // the built-in repository suite is there on a fresh install, with no import (created on first use)
  await expect(page.locator('select[name="suite"] option[value="repo-suite"]')).toHaveCount(1);
  // input/output suite: no agent settings
  await expect(page.getByRole('group', { name: 'Agent (repository tasks)' })).toHaveCount(0);
  await expect(page.locator('input[name="tools.bash"]')).toHaveCount(0);

  await page.getByLabel('Task suite').selectOption(suite);
  await expect(page.getByTestId('repo-suite-note')).toBeVisible();
  // the repository reward settings appear with a repository suite
  await expect(page.getByLabel('Repository reward')).toBeVisible();
  for (const tool of ['bash', 'read_file', 'write_file', 'str_replace', 'submit']) await expect(page.locator(`input[name="tools.${tool}"]`)).toBeChecked();
  await expect(page.locator('input[name="tools.submit"]')).toBeDisabled();
  await page.locator('input[name="tools.read_file"]').uncheck();
  await page.locator('input[name="tools.write_file"]').uncheck();
  await page.getByLabel('Token budget per episode').fill('3072');
  await expect(page.getByLabel('System prompt')).toHaveValue(''); // empty: Crucible's default
  await page.getByLabel('System prompt').fill('You fix bugs in this repository. Run the tests, then submit.');
  await page.getByLabel('Iterations').fill('1');
  await page.getByRole('button', { name: 'Launch run' }).click();
  // before any sandbox worker has registered, a launch waits for this host's runtime probe (about 20 s)
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  const runId = page.url().split('/').pop()!;
  await expect(page.getByTestId('config-tools')).toHaveText('bash,str_replace,submit');
  await expect(page.getByTestId('config-agentSystemPrompt')).toHaveText('You fix bugs in this repository. Run the tests, then submit.');

  const sql = database();
  try {
    const [row] = await sql`select config from runs where id = ${runId}`;
    expect(row!.config).toMatchObject({
      suite,
      tools: ['bash', 'str_replace', 'submit'],
      agentTokenBudget: 3072,
      agentSystemPrompt: 'You fix bugs in this repository. Run the tests, then submit.',
    });
  } finally {
    await sql.end();
  }
  // no need to train it here (workers/rl/agent-loop.test.ts does): cancel, so other specs keep the CPUs
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('button', { name: 'Confirm cancel' }).click();
  await expect(page.getByText('cancelled').first()).toBeVisible();
});
