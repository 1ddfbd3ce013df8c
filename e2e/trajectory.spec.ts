import { expect, test } from '@playwright/test';
import { database, env, signIn } from './support';
import { seedEpisode, seededTurns } from './seed-episode';

test('a seeded episode shows every turn, its reward and environment hash, reached from its run', async ({ page }) => {
  const sql = database();
  let seeded: Awaited<ReturnType<typeof seedEpisode>>;
  try {
    seeded = await seedEpisode(sql, Date.now().toString(36));
  } finally {
    await sql.end();
  }

  await signIn(page, 'admin', env.adminPassword);
  await page.goto(`/runs/${seeded.runId}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(seeded.runName);
  await expect(page.getByTestId('metric-chart').filter({ hasText: 'reward_mean' })).toBeVisible();
  const episodeRow = page.getByTestId('episode-row');
  await expect(episodeRow).toHaveCount(1);
  await expect(episodeRow).toContainText('0.875');
  await episodeRow.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${seeded.episodeId}$`));
  await expect(page.getByRole('link', { name: seeded.runName })).toBeVisible();

  const turns = page.getByTestId('turn');
  await expect(turns).toHaveCount(seededTurns.length);
  for (const [i, t] of seededTurns.entries()) {
    const turn = turns.nth(i);
    await expect(turn).toContainText(`Turn ${i}`);
    await expect(turn.getByTestId('action')).toHaveText(t.action);
    await expect(turn.getByTestId('stdout')).toHaveText(t.stdout);
    if (t.stderr) await expect(turn.getByTestId('stderr')).toHaveText(t.stderr);
    await expect(turn.getByTestId('exit-code')).toHaveText(`exit ${t.exitCode}`);
    await expect(turn).toContainText(`sandbox ${340 + i} ms`);
    await expect(turn).toContainText(`max RSS ${21.5 + i} MB`);
  }
  await expect(page.getByTestId('reward-value')).toHaveText('0.875');
  await expect(page.getByRole('table', { name: 'Reward components' })).toContainText('testsPassed');
  await expect(page.getByTestId('env-hash')).toHaveText(seeded.envHash);
});
