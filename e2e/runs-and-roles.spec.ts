import { expect, test } from '@playwright/test';
import { env, people, signIn } from './support';

// One story, in order: the admin creates the people, then each uses the console in their role.
test.describe.configure({ mode: 'serial' });

const runName = `e2e-run-${Date.now().toString(36)}`;

test('admin signs in and creates an operator and a reviewer', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);
  const form = page.getByRole('form', { name: 'Create user' });
  for (const p of [people.operator, people.reviewer]) {
    await form.getByLabel('Username').fill(p.username);
    await form.getByLabel('Initial password').fill(p.password);
    await form.getByLabel('Role').selectOption(p.role);
    await form.getByRole('button', { name: 'Create user' }).click();
    await expect(page.getByRole('status').filter({ hasText: `${p.username} (${p.role}) created` })).toBeVisible();
    const row = page.getByTestId('user-row').filter({ hasText: p.username });
    await expect(row.getByLabel(`Role of ${p.username}`)).toHaveValue(p.role);
  }

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  // Signed out means signed out: a protected page sends us back to sign in.
  await page.goto('/admin/users');
  await expect(page).toHaveURL(/\/login\?next=%2Fadmin%2Fusers$/);
});

test('operator launches a run from the form, finds it listed, and pauses, resumes and cancels it', async ({ page }) => {
  await signIn(page, people.operator.username, people.operator.password);
  await page.goto('/runs');
  await page.getByRole('link', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/new$/);

  // Defaults come from the schema.
  await expect(page.getByLabel('Group size')).toHaveValue('8');
  await expect(page.getByLabel('vCPUs')).toHaveValue('2');

  await page.getByLabel('Run name').fill(runName);
  // An invalid value shows its error inline while typing, before any submit.
  await page.getByLabel('Group size').fill('0');
  const groupError = page.locator('#field-groupSize-error');
  await expect(groupError).toBeVisible();
  await expect(groupError).toHaveText('Must be at least 1');
  await expect(page.getByLabel('Group size')).toHaveAttribute('aria-invalid', 'true');
  // Submitting does not send it: we stay on the form with the count of problems, which is
  // the number of fields that say what is wrong.
  await page.getByRole('button', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/new$/);
  await expect(page.getByText('1 field needs fixing before launch.')).toBeVisible();
  await page.getByLabel('Learning rate').fill('2');
  await expect(page.locator('#field-learningRate-error')).toHaveText('Must be at most 1');
  await expect(page.getByText('2 fields need fixing before launch.')).toBeVisible();
  await expect(page.locator('[id^="field-"][id$="-error"]')).toHaveCount(2);
  await page.getByLabel('Learning rate').fill('0.0003');

  await page.getByLabel('Group size').fill('4');
  await expect(groupError).toHaveCount(0);
  await page.getByRole('button', { name: 'Launch run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 60_000 }); // a launch before any sandbox worker registered waits for the runtime probe
  await expect(page.getByRole('heading', { level: 1 })).toContainText(runName);
  await expect(page.getByTestId('config-groupSize')).toHaveText('4');

  // Listed on /runs, and the row opens it.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await page.getByLabel('Search runs').fill(runName);
  const row = page.getByTestId('run-row').filter({ hasText: runName });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('status')).toHaveText(/queued|running/); // running from the moment a worker takes it
  await row.getByRole('link', { name: runName }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 60_000 }); // a launch before any sandbox worker registered waits for the runtime probe

  const status = page.getByTestId('run-status');
  await expect(status).toHaveText(/queued|running/);
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(status).toHaveText('paused');
  await expect(page.getByRole('button', { name: 'Pause' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(status).toHaveText(/queued|running/);

  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('button', { name: 'Confirm cancel' }).click();
  await expect(status).toHaveText('cancelled');
  // A cancelled run offers no way back, only a copy.
  await expect(page.getByRole('button', { name: 'Resume' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Clone' })).toBeVisible();

  // Every change is a run event.
  const events = page.getByTestId('run-event');
  for (const type of ['created', 'pause', 'resume', 'cancel']) await expect(events.filter({ hasText: type }).first()).toBeVisible();
});

test('reviewer sees no launch button and the API refuses runs.create', async ({ page }) => {
  await signIn(page, people.reviewer.username, people.reviewer.password);
  await page.goto('/runs');
  await expect(page.getByTestId('run-row').filter({ hasText: runName })).toHaveCount(1);
  await expect(page.getByRole('link', { name: 'Launch run' })).toHaveCount(0);
  // No admin pages in the nav either.
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' })).toHaveCount(0);

  // The server enforces it whatever the UI shows: a direct POST with the reviewer's session cookie.
  const res = await page.request.post('/api/trpc/runs.create', { data: { json: { name: 'reviewer-sneaks-a-run', config: {} } } });
  expect(res.status()).toBe(403);
  const body = await res.text();
  expect(body).toContain('FORBIDDEN');

  // Nothing was created.
  await page.getByLabel('Search runs').fill('reviewer-sneaks');
  await expect(page.getByText('No runs match these filters')).toBeVisible();

  // The run page shows no lifecycle buttons to a reviewer.
  await page.getByLabel('Search runs').fill(runName);
  await page.getByTestId('run-row').filter({ hasText: runName }).getByRole('link', { name: runName }).click();
  await expect(page.getByTestId('run-status')).toHaveText('cancelled');
  await expect(page.getByRole('button', { name: 'Clone' })).toHaveCount(0);
});
