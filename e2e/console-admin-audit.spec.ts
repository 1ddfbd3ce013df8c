import assert from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { connect } from '@/db/client';
import { appendAudit } from '@/server/audit/service';
import { defaultRunConfig } from '@/core/run-config';
import { database, env, seedSuiteAndTask, signIn, trpc } from './support';

/**
 * Issue 17 (audit and admin): the audit log's filters (actor, action, target, time range),
 * the "hide sandbox.exec" toggle, keyset paging and expandable details; confirmation dialogs
 * for role changes, token revoke and run clone; re-enabling a disabled user. Screenshots at
 * 1440 and 1024 px go to test-results/screenshots/ (copies in docs/screenshots/).
 */

const tag = Date.now().toString(36);
const shots = path.resolve('test-results', 'screenshots');

/** The page at 1440 and 1024 px into `shots`/NAME-WIDTH.png; the viewport is put back after. */
async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: opts.fullPage ?? true });
  }
  if (before) await page.setViewportSize(before);
}

/** Rows in the audit chain as the sandbox worker writes them (hash-chained, through the service). */
async function appendSandboxExecs(n: number, actor: string) {
  const { databaseUrl } = JSON.parse(fs.readFileSync(path.join(env.dataDir, 'runtime.json'), 'utf8')) as { databaseUrl: string };
  const conn = connect(databaseUrl, { max: 1 });
  try {
    for (let i = 0; i < n; i++) {
      await appendAudit(conn.db, {
        actor,
        action: 'sandbox.exec',
        targetType: 'sandbox',
        targetId: `sb-${tag}-${i}`,
        details: { i, command: ['python3', 'main.py'], exitCode: 0 },
      });
    }
  } finally {
    await conn.close();
  }
}

test('audit log: sandbox.exec hidden by default, filters (kept in the URL), keyset paging, expandable details', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin', env.adminPassword);
  await trpc(page, 'users.create', { username: `audited-${tag}`, password: 'audited-pass-123', role: 'viewer' });
  // the newest 60 rows are routine execs, written after the user.create
  await appendSandboxExecs(60, `system:sandbox-${tag}`);

  await page.setViewportSize({ width: 1024, height: 800 });
  await page.goto('/audit');
  const rows = page.getByTestId('audit-row');
  await expect(rows.first()).toBeVisible();
  // routine rows hidden by default: the user.create is on top, no sandbox.exec anywhere
  await expect(page.getByTestId('hide-sandbox-exec')).toBeChecked();
  await expect(page.locator('[data-testid="audit-row"][data-action="sandbox.exec"]')).toHaveCount(0);
  await expect(rows.first()).toHaveAttribute('data-action', 'user.create');
  await screenshot(page, 'audit-log');

  // showing them puts the 60 on top
  await page.getByTestId('hide-sandbox-exec').uncheck();
  await expect(rows.first()).toHaveAttribute('data-action', 'sandbox.exec');

  // actor + action filter: 60 rows, 50 on the first page, 10 on the next (keyset), and back
  await page.getByLabel('Actor').fill(tag);
  await page.getByLabel('Action').fill('sandbox.exec');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByTestId('audit-count')).toContainText('Page 1 · 60 matching entries');
  // the filters are in the URL: a reload (or a link) shows the same view
  await expect(page).toHaveURL(new RegExp(`/audit\\?actor=${tag}&action=sandbox\\.exec&routine=show$`));
  await page.reload();
  await expect(page.getByTestId('audit-count')).toContainText('Page 1 · 60 matching entries');
  await expect(page.getByLabel('Actor')).toHaveValue(tag);
  await expect(page.getByTestId('hide-sandbox-exec')).not.toBeChecked();
  await expect(rows).toHaveCount(50);
  await expect(page.getByRole('button', { name: 'Newer entries' })).toBeDisabled();
  await page.getByRole('button', { name: 'Older entries' }).click();
  await expect(page.getByTestId('audit-count')).toContainText('Page 2 · 60 matching entries');
  await expect(rows).toHaveCount(10);
  await expect(page.getByRole('button', { name: 'Older entries' })).toBeDisabled();
  // the oldest of the 60 is last: details i = 0
  const last = rows.last();
  await last.getByTestId('audit-expand').click();
  await expect(last.getByTestId('audit-expand')).toHaveAttribute('aria-expanded', 'true');
  const details = page.getByTestId('audit-details');
  await expect(details).toHaveCount(1);
  await expect(details).toContainText('"i": 0');
  await expect(details).toContainText(`sb-${tag}-0`);
  await expect(details).toContainText('Previous hash');
  await screenshot(page, 'audit-details');
  await last.getByTestId('audit-expand').click();
  await expect(details).toHaveCount(0);
  await page.getByRole('button', { name: 'Newer entries' }).click();
  await expect(rows).toHaveCount(50);

  // target filter: exactly one row
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByLabel('Target id').fill(`sb-${tag}-7`);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId('audit-count')).toContainText('1 matching entry');

  // a time range in the future: nothing, said plainly
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByLabel('From').fill('2099-01-01T00:00');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('No entries match these filters')).toBeVisible();
});

test('admin: role change, token revoke and run clone ask first; a disabled user can be re-enabled', async ({ page }) => {
  test.setTimeout(150_000);
  const username = `conf-${tag}`;
  await signIn(page, 'admin', env.adminPassword);
  await trpc(page, 'users.create', { username, password: 'confirm-pass-123', role: 'viewer' });

  // role change: Esc keeps the role; confirming changes it
  await page.goto('/admin/users');
  const row = page.getByTestId('user-row').filter({ hasText: username });
  const role = row.getByLabel(`Role of ${username}`);
  await role.selectOption('operator');
  const dialog = page.getByRole('alertdialog', { name: `Change ${username}'s role?` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('goes from viewer to operator');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await screenshot(page, 'admin-role-confirm', { fullPage: false });
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(role).toHaveValue('viewer');
  await role.selectOption('operator');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Make operator' }).click();
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(role).toHaveValue('operator');

  // disable (inline confirm, as before), then re-enable through the dialog
  await row.getByRole('button', { name: 'Disable' }).click();
  await row.getByRole('button', { name: 'Confirm disable' }).click();
  await expect(row).toContainText('disabled');
  await row.getByRole('button', { name: 'Re-enable' }).click();
  const enable = page.getByRole('alertdialog', { name: `Re-enable ${username}?` });
  await expect(enable).toContainText('API tokens stay revoked');
  await screenshot(page, 'admin-reenable-confirm', { fullPage: false });
  await enable.getByRole('button', { name: 'Re-enable' }).click();
  await expect(row).toContainText('active');
  await expect(row.getByRole('button', { name: 'Re-enable' })).toHaveCount(0);
  await screenshot(page, 'admin-users');

  // the re-enable is in the audit log
  await page.goto('/audit');
  await page.getByLabel('Action').fill('user.enable');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByTestId('audit-row')).toHaveCount(1);
  await expect(page.getByTestId('audit-row')).toContainText('user:admin');

  // token revoke: Cancel keeps it; confirming revokes it
  const token = `ci-${tag}`;
  await trpc(page, 'tokens.create', { name: token, username });
  await page.goto('/admin/tokens');
  const tokenRow = page.getByTestId('token-row').filter({ hasText: token });
  await tokenRow.getByRole('button', { name: 'Revoke' }).click();
  const revoke = page.getByRole('alertdialog', { name: `Revoke token “${token}”?` });
  await expect(revoke).toContainText('cannot be restored');
  await screenshot(page, 'admin-token-revoke-confirm', { fullPage: false });
  await revoke.getByRole('button', { name: 'Cancel' }).click();
  await expect(tokenRow).toContainText('active');
  await expect(tokenRow.getByRole('button', { name: 'Revoke' })).toBeFocused(); // focus back where it was
  await tokenRow.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke token' }).click();
  await expect(tokenRow).toContainText('revoked');

  // run clone: Cancel stays; confirming creates the copy and opens it
  const sql = database();
  let runId: string;
  try {
    const suite = `conf-suite-${tag}`;
    await seedSuiteAndTask(sql, suite);
    const [run] = await sql`
      insert into runs (name, status, config, current_iteration, episodes_total, episodes_done, started_at, finished_at)
      values (${`clone-me-${tag}`}, 'completed', ${sql.json({ ...defaultRunConfig, suite, iterations: 1, tasksPerIteration: 1, groupSize: 2 })}, 1, 2, 2, now() - interval '5 minutes', now())
      returning id`;
    assert(run !== undefined, 'no run');
    runId = run.id as string;
  } finally {
    await sql.end();
  }
  await page.goto(`/runs/${runId}`);
  await page.getByRole('button', { name: 'Clone', exact: true }).click();
  const clone = page.getByRole('alertdialog', { name: `Clone “clone-me-${tag}”?` });
  await expect(clone).toContainText('queued at once');
  await screenshot(page, 'run-clone-confirm', { fullPage: false });
  await clone.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await page.getByRole('button', { name: 'Clone', exact: true }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Clone and queue' }).click();
  await expect(page).not.toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(page.getByRole('heading', { name: new RegExp(`clone-me-${tag} \\(clone\\)`) })).toBeVisible();
  // do not leave the copy training in the shared test app
  const copyId = page.url().split('/runs/')[1]!;
  await trpc(page, 'runs.cancel', { id: copyId });
});
