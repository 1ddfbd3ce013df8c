import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { expect, type Page } from '@playwright/test';

/**
 * Set by scripts/e2e.ts for the app it started. The one place the specs read the environment
 * (Playwright's process, configured by the runner that spawned it; see eslint.config.mjs).
 */
export const env = {
  baseUrl: required('E2E_BASE_URL'),
  adminPassword: required('E2E_ADMIN_PASSWORD'),
  dataDir: required('E2E_DATA_DIR'),
  /** The app's environment store when the caller set one (else `<data>/envs`). */
  envStore: process.env.CRUCIBLE_ENV_STORE || undefined,
};

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the browser tests with \`npm run test:e2e\` (scripts/e2e.ts), which starts the app and sets it`);
  return v;
}

/** Users the specs create through the console and then sign in as. */
export const people = {
  operator: { username: 'olivia-ops', password: 'operator-pass-123', role: 'operator' },
  reviewer: { username: 'rex-review', password: 'reviewer-pass-123', role: 'reviewer' },
} as const;

export async function signIn(page: Page, username: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('current-user')).toContainText(username);
}

/** A direct connection to the app's embedded database, as advertised in runtime.json. */
export function database() {
  const { databaseUrl } = JSON.parse(fs.readFileSync(path.join(env.dataDir, 'runtime.json'), 'utf8')) as { databaseUrl: string };
  return postgres(databaseUrl, { max: 1, onnotice: () => {} });
}

/** A one-task suite (`add`, two io cases) named `name`, its task `add-<name>`: what e2e specs seed runs on. */
export async function seedSuiteAndTask(sql: postgres.Sql, name: string) {
  const [suite] = await sql`insert into task_suites (name, description, source) values (${name}, 'seeded by e2e', 'import') returning id`;
  assert(suite !== undefined, 'no suite');
  const [task] = await sql`
    insert into tasks (suite_id, external_id, language, prompt, entry_point, tests)
    values (${suite.id}, ${`add-${name}`}, 'python', ${'def add(a, b):\n    """Return the sum of a and b."""\n'}, 'add',
      ${sql.json({
        kind: 'io',
        cases: [
          { input: [2, 3], expected: 5 },
          { input: [1, 1], expected: 2 },
        ],
      })})
    returning id`;
  assert(task !== undefined, 'no task');
  return { suiteId: suite.id as string, taskId: task.id as string };
}

/** A tRPC mutation as the signed-in page's user (superjson's plain-JSON form); fails the test on an error answer. */
export const trpc = async (page: Page, proc: string, input: unknown) => {
  const res = await page.request.post(`/api/trpc/${proc}`, { data: { json: input } });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: unknown } } }).result.data.json;
};

/** Where specs save screenshots: outside test-results/, which every Playwright run empties (copies in docs/screenshots/). */
export const screenshotDir = path.join(os.tmpdir(), 'crucible-e2e-screenshots');

/** `<name>-1440.png` and `<name>-1024.png` in screenshotDir, the viewport restored after. */
export async function screenshotAtWidths(page: Page, name: string, opts: { fullPage?: boolean } = {}) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(400); // charts re-measure on resize
    await page.screenshot({ path: path.join(screenshotDir, `${name}-${width}.png`), fullPage: opts.fullPage ?? false });
  }
  if (before) await page.setViewportSize(before);
}
