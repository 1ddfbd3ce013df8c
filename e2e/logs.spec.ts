import { expect, test } from '@playwright/test';
import { database, env, signIn } from './support';
import { seedEpisode } from './seed-episode';

/**
 * Issue 38 §2 (logs from every host): the /logs page filters records by run, level, text and
 * host with the filters in the URL, colours levels, and links a record to its episode, whose
 * page shows the episode's timeline built from its records.
 */

const tag = `logs-${Date.now().toString(36)}`;

test('logs page filters (kept in the URL) and the episode timeline', async ({ page }) => {
  const sql = database();
  let seeded: Awaited<ReturnType<typeof seedEpisode>>;
  try {
    seeded = await seedEpisode(sql, tag);
    const t0 = Date.now() - 60_000;
    const at = (ms: number) => new Date(t0 + ms);
    const rec = (o: { ms: number; level: string; msg: string; host: string; episode?: boolean; fields?: Record<string, unknown>; job?: number }) => ({
      at: at(o.ms),
      level: o.level,
      msg: o.msg,
      host: o.host,
      worker_id: `jobs-${o.host}`,
      process: 'jobs',
      pid: 4242,
      run_id: seeded.runId,
      episode_id: o.episode ? seeded.episodeId : null,
      job_id: o.job ?? null,
      fields: sql.json((o.fields ?? {}) as Parameters<typeof sql.json>[0]),
    });
    const rows = [
      rec({ ms: 0, level: 'info', msg: `job 7 started: rl.episode (attempt 1/5) ${tag}`, host: 'host-a', episode: true, job: 7 }),
      rec({ ms: 10, level: 'info', msg: 'episode started: repo task, iteration 2', host: 'host-a', episode: true, fields: { stage: 'episode' } }),
      rec({
        ms: 900,
        level: 'info',
        msg: 'turn 0: sampled 42 tokens in 880 ms',
        host: 'host-a',
        episode: true,
        fields: { stage: 'sample', tokens: 42, durationMs: 880 },
      }),
      rec({
        ms: 1500,
        level: 'info',
        msg: 'turn 0: tool bash in 600 ms, exit code 1',
        host: 'host-a',
        episode: true,
        fields: { stage: 'tool', tool: 'bash', durationMs: 600, exitCode: 1 },
      }),
      rec({
        ms: 2500,
        level: 'warn',
        msg: 'graded: infra_error: the grader timed out',
        host: 'host-a',
        episode: true,
        fields: { stage: 'grade', status: 'infra_error' },
      }),
      rec({ ms: 3000, level: 'error', msg: `learner: failing the run ${tag}`, host: 'host-b', fields: { stage: 'learner', iteration: 2 } }),
    ];
    for (const r of rows) await sql`insert into log_records ${sql(r)}`;
  } finally {
    await sql.end();
  }

  await signIn(page, 'admin', env.adminPassword);
  await page.goto('/logs');
  await expect(page.getByRole('heading', { name: 'Logs' })).toBeVisible();

  // filter by run: only its records, from both hosts, newest first; the run is in the URL
  await page.getByLabel('Run').fill(seeded.runId);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(new RegExp(`/logs\\?run=${seeded.runId}$`));
  const rowsShown = page.getByTestId('log-row');
  await expect(rowsShown).toHaveCount(6);
  await expect(rowsShown.first().getByTestId('log-msg')).toHaveText(`learner: failing the run ${tag}`);
  await expect(rowsShown.first()).toHaveAttribute('data-host', 'host-b');
  await expect(rowsShown.last()).toHaveAttribute('data-host', 'host-a');
  // levels are coloured: error red, warn amber
  await expect(rowsShown.first().getByTestId('log-level')).toHaveClass(/bg-red-100/);
  await expect(rowsShown.nth(1).getByTestId('log-level')).toHaveClass(/bg-amber-100/);

  // the level applies at once: warn and above
  await page.getByLabel('Level').selectOption('warn');
  await expect(page).toHaveURL(new RegExp(`run=${seeded.runId}&level=warn`));
  await expect(rowsShown).toHaveCount(2);
  await expect(rowsShown.getByTestId('log-level')).toHaveText(['error', 'warn']);

  // text matches the message or a field; a reload keeps every filter
  await page.getByLabel('Level').selectOption('');
  await expect(page).toHaveURL(new RegExp(`/logs\\?run=${seeded.runId}$`));
  await expect(rowsShown).toHaveCount(6);
  await page.getByLabel('Text').fill('bash');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rowsShown).toHaveCount(1);
  await page.reload();
  await expect(page.getByLabel('Text')).toHaveValue('bash');
  await expect(page.getByLabel('Run')).toHaveValue(seeded.runId);
  await expect(rowsShown).toHaveCount(1);
  await expect(rowsShown.first().getByTestId('log-msg')).toHaveText('turn 0: tool bash in 600 ms, exit code 1');
  // a record's fields on demand
  await rowsShown.first().getByTestId('log-expand').click();
  await expect(page.getByTestId('log-details')).toContainText('"exitCode": 1');
  await expect(page.getByTestId('log-details')).toContainText('worker jobs-host-a');

  // a run id that is not an id is named, not sent
  await page.goto('/logs?run=not-a-run');
  await expect(page.getByRole('region', { name: 'Records' }).getByRole('alert')).toContainText('Run must be a run id');

  // the record's episode link opens the episode, whose timeline is built from its records
  await page.goto(`/logs?episode=${seeded.episodeId}`);
  await expect(rowsShown).toHaveCount(5);
  await rowsShown.first().getByTestId('log-episode-link').click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${seeded.episodeId}$`));
  const timeline = page.getByRole('region', { name: 'Timeline' });
  const steps = timeline.getByTestId('timeline-row');
  // the episode's five records, then the learner step of its iteration (2), on the other host
  await expect(steps).toHaveCount(6);
  await expect(steps.first()).toContainText('+0 ms');
  await expect(steps.nth(3)).toContainText('+1.50 s');
  await expect(steps.nth(3)).toHaveAttribute('data-stage', 'tool');
  await expect(steps.nth(3)).toContainText('tool=bash durationMs=600 exitCode=1');
  await expect(steps.nth(4)).toHaveAttribute('data-level', 'warn');
  await expect(steps.nth(4)).toContainText('graded: infra_error');
  await expect(steps.nth(5)).toHaveAttribute('data-stage', 'learner');
  await expect(steps.nth(5)).toContainText('+3.00 s');
  await expect(steps.nth(5)).toContainText('host-b');
  await expect(timeline.getByRole('link', { name: /All of this episode/ })).toHaveAttribute('href', `/logs?episode=${seeded.episodeId}`);
});
