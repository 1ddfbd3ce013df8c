import { expect, test } from '@playwright/test';
import { env, signIn } from './support';

// One story, in order: an admin creates a user and resets their password; the user signs in
// with the one-time password, is held on the change-password page, and picks a new one.
test.describe.configure({ mode: 'serial' });

const user = { username: `acct-${Date.now().toString(36)}`, password: 'first-password-123', next: 'chosen-password-456', final: 'final-password-789' };
let oneTime = '';

test('admin resets a password: a one-time password is shown once', async ({ page }) => {
  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/admin/users');
  const form = page.getByRole('form', { name: 'Create user' });
  await form.getByLabel('Username').fill(user.username);
  await form.getByLabel('Initial password').fill(user.password);
  await form.getByLabel('Role').selectOption('viewer');
  await form.getByRole('button', { name: 'Create user' }).click();
  const row = page.getByTestId('user-row').filter({ hasText: user.username });
  await row.getByRole('button', { name: 'Reset password' }).click();
  // revoking the user's API tokens is the default (a reset usually means the account may be compromised)
  await expect(row.getByRole('checkbox', { name: 'Revoke their API tokens' })).toBeChecked();
  await row.getByRole('button', { name: 'Confirm reset' }).click();
  oneTime = (await page.getByTestId('one-time-password').textContent())!.trim();
  expect(oneTime.length).toBeGreaterThanOrEqual(10);
  await expect(row).toContainText('must change password');
});

test('the user is held on the change-password page until they choose a new password', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(oneTime);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByRole('alert').filter({ hasText: 'An admin reset your password' })).toBeVisible();
  // Anywhere else leads back here.
  await page.goto('/runs');
  await expect(page).toHaveURL(/\/account$/);

  const form = page.getByRole('form', { name: 'Change password' });
  await form.getByLabel('One-time password from your admin').fill(oneTime);
  await form.getByLabel('New password', { exact: true }).fill(user.next);
  await form.getByLabel('New password again').fill(user.next);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByTestId('current-user')).toContainText(user.username);
});

test('a signed-in user changes their own password on the account page', async ({ page }) => {
  await signIn(page, user.username, user.next);
  await page.getByTestId('current-user').click();
  await expect(page).toHaveURL(/\/account$/);
  const form = page.getByRole('form', { name: 'Change password' });
  await form.getByLabel('Current password').fill('not-my-password');
  await form.getByLabel('New password', { exact: true }).fill(user.final);
  await form.getByLabel('New password again').fill(user.final);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('alert')).toContainText('current password is wrong');
  await form.getByLabel('Current password').fill(user.next);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('status')).toContainText('Password changed');
  // This session goes on with the re-issued cookie.
  await page.goto('/runs');
  await expect(page.getByTestId('current-user')).toContainText(user.username);
});

test('sign-in never follows ?next= off this site', async ({ page }) => {
  await page.goto('/login?next=/%5Cevil.example/x');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.final);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('current-user')).toContainText(user.username);
  await expect(page).toHaveURL(/\/runs$/);
  expect(new URL(page.url()).host).toBe(new URL(env.baseUrl).host);
});
