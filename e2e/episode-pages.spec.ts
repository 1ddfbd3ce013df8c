import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { database, env, signIn } from './support';
import { seedAgentEpisode, seedIoEpisodeWithTests } from './seed-agent-episode';

/**
 * Issues 16 and 17 (episodes): an agent episode shown as the agent saw it (messages, tool
 * calls with their arguments and outputs, the workspace diff after each turn) with its grading
 * run (every test by list, rejected paths, runtime, environment hash, patch); an input/output
 * episode with each test's recorded result. Screenshots at 1440 and 1024 px go to
 * test-results/screenshots/ (copies in docs/screenshots/).
 */

const tag = Date.now().toString(36);
const shots = path.resolve('test-results', 'screenshots');

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

test('agent episode: each turn as the agent saw it, the workspace diff so far, and the grading run with every test', async ({ page }) => {
  test.setTimeout(240_000);
  const sql = database();
  let seeded: Awaited<ReturnType<typeof seedAgentEpisode>>;
  try {
    // a real episode: the scripted policy in a bwrap sandbox, graded by the grader in a clean one
    seeded = await seedAgentEpisode(sql, { tag, dataDir: env.dataDir, storeDir: env.envStore });
  } finally {
    await sql.end();
  }
  expect(seeded.grading).toMatchObject({ status: 'graded', reward: 1, rejectedPaths: ['tests/test_intervals.py'] });

  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/episodes/${seeded.episodeId}`);
  await expect(page.getByTestId('episode-runtime')).toHaveText(seeded.runtime);
  await expect(page.getByRole('region', { name: 'Task' })).toContainText('graded on 2 FAIL_TO_PASS and 5 PASS_TO_PASS tests');
  const turns = page.getByTestId('agent-turn');
  await expect(turns).toHaveCount(seeded.turns);

  // turn 0: a shell command with a long output, capped until "show more"
  const t0 = turns.nth(0);
  await expect(t0.getByTestId('tool-name')).toHaveText('bash');
  await expect(t0.getByTestId('tool-summary')).toHaveText('$ cat -n booking/intervals.py tests/test_intervals.py');
  // the scripted policy writes only the call: no prose, the raw message on demand
  await expect(t0.getByTestId('assistant-prose')).toHaveCount(0);
  await expect(t0.getByTestId('raw-message')).toContainText('tool calls only');
  await expect(t0.getByTestId('tool-output')).not.toContainText('test_total_length');
  await t0.getByTestId('tool-output-toggle').click();
  await expect(t0.getByTestId('tool-output')).toContainText('test_total_length');
  await expect(t0.getByTestId('workspace-diff')).toHaveText('Workspace diff after this turn: no changes (unchanged by this turn)');

  // turn 1: a failing call is an error the agent was told about
  await expect(turns.nth(1).getByTestId('tool-name')).toHaveText('read_file');
  await expect(turns.nth(1).getByTestId('tool-error-badge')).toBeVisible();
  await expect(turns.nth(1).getByTestId('tool-output')).toContainText('no such file: booking/merge.py');

  // turn 3: the first edit, as -/+ lines, and the workspace diff it made
  const t3 = turns.nth(3);
  await expect(t3.getByTestId('tool-summary')).toHaveText('booking/intervals.py');
  await expect(t3.getByTestId('tool-edit').locator('[data-kind="del"]')).toHaveText(['-    for start, end in intervals:']);
  await expect(t3.getByTestId('tool-edit').locator('[data-kind="add"]')).toHaveText(['+    for start, end in sorted(intervals):']);
  const diff3 = t3.getByTestId('workspace-diff');
  await expect(diff3).toContainText('1 file, +1 −1');
  await expect(diff3).toContainText('changed by this turn');
  await diff3.locator('summary').click();
  await expect(diff3.locator('[data-kind="add"]')).toHaveText(['+    for start, end in sorted(intervals):']);
  await expect(turns.nth(4).getByTestId('workspace-diff-summary')).toHaveText('1 file, +2 −2');

  // turn 5: a multi-line command shown whole; the agent's own test file edit shows in the diff
  const t5 = turns.nth(5);
  await expect(t5.getByTestId('tool-command')).toContainText("cat >> tests/test_intervals.py <<'EOF'");
  await expect(t5.getByTestId('tool-output')).toContainText('passed');
  await expect(t5.getByTestId('workspace-diff-summary')).toHaveText('2 files, +6 −2');
  await expect(turns.last().getByTestId('tool-name')).toHaveText('submit');
  await expect(turns.last()).toContainText('submitted');

  // the grading run: every test with its list, the dropped test edit, runtime, hash, patch
  const grading = page.getByTestId('grading-run');
  await expect(grading.getByTestId('grading-status')).toHaveText('graded');
  await expect(grading.getByTestId('grading-reward')).toHaveText('1');
  await expect(grading.getByTestId('grading-tally')).toContainText('FAIL_TO_PASS 2/2 passed');
  await expect(grading.getByTestId('grading-tally')).toContainText('PASS_TO_PASS 5/5 passed');
  const rows = grading.getByTestId('grading-test-row');
  await expect(rows).toHaveCount(seeded.task.failToPass.length + seeded.task.passToPass.length);
  await expect(rows.nth(0)).toContainText(`${seeded.task.failToPass[0]}FAIL_TO_PASS✓ passed`);
  await expect(rows.nth(2)).toContainText('PASS_TO_PASS');
  await expect(grading.getByTestId('rejected-paths')).toContainText('tests/test_intervals.py');
  await expect(grading.getByTestId('grading-runtime')).toHaveText(seeded.grading.runtime);
  await expect(grading.getByTestId('grading-env-hash')).toHaveText(seeded.grading.envHash);
  // the graded patch is the agent's whole diff, its own test edit included (grading dropped that part)
  await expect(grading.getByTestId('grading-patch-summary')).toHaveText('2 files, +6 −2');
  await grading.getByTestId('grading-patch').locator('summary').click();
  await expect(grading.getByTestId('grading-patch').locator('[data-kind="del"]')).toHaveText([
    '-    for start, end in intervals:',
    '-        if out and start < out[-1][1]:',
  ]);
  await expect(grading.getByTestId('diff-file-note')).toHaveCount(1);
  await expect(grading.getByTestId('grading-patch').locator('[data-kind="file"]', { has: page.getByTestId('diff-file-note') })).toContainText(
    'diff --git a/tests/test_intervals.py b/tests/test_intervals.py',
  );
  // never the harness protocol (marker lines, the grader's report channel)
  const body = await page.locator('main').innerText();
  expect(body).not.toMatch(/\u001e|CRUCIBLE-[0-9a-f]{8}/);
  // an honest episode is not held for review
  await expect(grading.getByTestId('grading-suspect')).toHaveCount(0);
  await screenshot(page, 'episode-agent');

  // a grade held for review shows the grader's evidence beside the tests
  const held = database();
  try {
    await held`update episodes set grading = grading || ${held.json({ suspect: ['reads or lists test files: booking/intervals.py: "tests/"'] })} where id = ${seeded.episodeId}`;
  } finally {
    await held.end();
  }
  await page.reload();
  await expect(page.getByTestId('grading-suspect')).toContainText('Held for review');
  await expect(page.getByTestId('grading-suspect')).toContainText('reads or lists test files: booking/intervals.py');
});

test('input/output episode: each test’s recorded result (index, passed, time, detail), the derived table only for an older turn', async ({ page }) => {
  const sql = database();
  let seeded: Awaited<ReturnType<typeof seedIoEpisodeWithTests>>;
  try {
    seeded = await seedIoEpisodeWithTests(sql, tag);
  } finally {
    await sql.end();
  }
  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/episodes/${seeded.episodeId}`);
  const turns = page.getByTestId('turn');
  await expect(turns).toHaveCount(3);
  // the oldest turn has no per-test record: a table derived from its feedback line, said so
  await expect(turns.nth(0).getByTestId('tests-derived')).toBeVisible();
  await expect(turns.nth(0).getByTestId('tests-exact')).toHaveCount(0);

  const t1 = turns.nth(1);
  await expect(t1.getByTestId('tests-exact')).toHaveText("Each test's result as recorded: 1 of 3 passed.");
  await expect(t1.getByTestId('tests-derived')).toHaveCount(0);
  await expect(t1.getByTestId('test-row')).toHaveText([
    /^0add\(2, 3\)5✗ no0\.4 msexpected 5, got -1$/,
    /^1add\(1, 1\)2✓ yes0\.2 msreturned 0$/,
    /^2add\(0, -4\)-4✗ no0\.3 msexpected -4, got 4$/,
  ]);
  await expect(turns.nth(2).getByTestId('test-row')).toHaveText([/✓ yes.*returned 5/, /✓ yes.*returned 2/, /✓ yes.*returned -4/]);
  await screenshot(page, 'episode-io');
});
