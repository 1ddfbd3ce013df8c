import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { defaultRunConfig } from '@/core/run-config';
import { comparePalette, hashKey, runColors } from '@/components/runs/run-colors';
import { database, env, seedSuiteAndTask, signIn } from './support';

/**
 * Issue 17, compare: a sortable runs table with config columns the reader picks, and runs
 * grouped by a config field drawn as mean ± band. Four finished runs are seeded as the RL loop
 * would have written them (two learning rates × two seeds). Screenshots at 1440 and 1024 px
 * go to $TMPDIR/crucible-e2e-screenshots/ (copies in docs/screenshots/).
 */

const tag = Date.now().toString(36);
// outside test-results/, which every Playwright run (another spec's too) empties at its start
const shots = path.join(os.tmpdir(), 'crucible-e2e-screenshots');

async function screenshot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: before?.height ?? 900 });
    await page.waitForTimeout(400); // charts re-measure on resize
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

type RunSpec = { lr: number; seed: number; reward: number; algorithm?: 'grpo' | 'ppo'; groupSize?: number };

/** Four completed runs on one suite: learning rate 0.001 or 0.01, seeds 1–4, rewards apart by run. */
async function seedRuns(
  specs: RunSpec[] = [
    { lr: 0.001, seed: 1, reward: 0.2 },
    { lr: 0.01, seed: 2, reward: 0.6 },
    { lr: 0.001, seed: 3, reward: 0.4 },
    { lr: 0.01, seed: 4, reward: 0.8 },
  ],
  prefix = 'cmp',
) {
  const sql = database();
  try {
    const suite = `${prefix}-${tag}`;
    const { suiteId } = await seedSuiteAndTask(sql, suite);
    const ids: string[] = [];
    for (const [i, s] of specs.entries()) {
      const config = {
        ...defaultRunConfig,
        suite,
        iterations: 10,
        learningRate: s.lr,
        seed: s.seed,
        algorithm: s.algorithm ?? defaultRunConfig.algorithm,
        groupSize: s.groupSize ?? defaultRunConfig.groupSize,
      };
      const [run] = await sql`
        insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at, finished_at)
        values (${`${prefix}-${i + 1}-${tag}`}, 'completed', ${sql.json(config)}, ${suiteId}, 10, 40, 40, now() - interval '1 hour', now()) returning id, started_at`;
      assert(run !== undefined, 'no run');
      const start = (run.started_at as Date).getTime();
      const rows = [];
      for (let step = 0; step <= 10; step++) {
        const at = new Date(start + step * 60_000).toISOString();
        if (step > 0) rows.push({ run_id: run.id, source: 'rl', name: 'reward_mean', step, value: s.reward + step * 0.01, labels: {}, at });
        rows.push({ run_id: run.id, source: 'rl', name: 'heldout_pass_at_1', step, value: s.reward / 2, labels: {}, at });
      }
      await sql`
        insert into metric_samples (run_id, source, name, step, value, labels, at)
        select * from jsonb_to_recordset(${sql.json(rows)})
          as x(run_id uuid, source text, name text, step int, value float8, labels jsonb, at timestamptz)`;
      ids.push(run.id as string);
    }
    return ids;
  } finally {
    await sql.end();
  }
}

test('compare: a sortable runs table with chosen config columns, and runs grouped by a config field as mean ± band', async ({ page }) => {
  test.setTimeout(90_000);
  const ids = await seedRuns();
  await signIn(page, 'admin', env.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/compare?ids=${ids.join(',')}`);

  const table = page.getByTestId('compare-runs-table');
  const names = () => table.getByTestId('compared-run').locator('td:first-child').allTextContents();
  await expect(table.getByTestId('compared-run')).toHaveCount(4);
  // the differing config fields are the first columns
  await expect(table.locator('thead th')).toHaveText(['run↕', 'status↕', 'iteration↕', 'reward (last)↕', 'held-out pass@1 (last)↕', 'learningRate↕', 'seed↕']);

  // sort by the last reward: best first, then flipped
  await table.getByRole('button', { name: /reward \(last\)/ }).click();
  await expect.poll(names).toEqual([`cmp-4-${tag}`, `cmp-2-${tag}`, `cmp-3-${tag}`, `cmp-1-${tag}`]);
  await expect(table.locator('th[aria-sort="descending"]')).toContainText('reward (last)');
  await table.getByRole('button', { name: /reward \(last\)/ }).click();
  await expect.poll(names).toEqual([`cmp-1-${tag}`, `cmp-3-${tag}`, `cmp-2-${tag}`, `cmp-4-${tag}`]);
  // by a config column, numerically
  await table.getByRole('button', { name: /^learningRate/ }).click();
  await expect(table.getByTestId('cell-config:learningRate')).toHaveText(['0.001', '0.001', '0.01', '0.01']);

  // another config column, chosen from every field
  await page.getByTestId('column-picker').locator('summary').click();
  await page.getByLabel('Column algorithm').check();
  await expect(table.getByTestId('cell-config:algorithm')).toHaveText(['grpo', 'grpo', 'grpo', 'grpo']);
  await page.getByTestId('column-picker').locator('summary').click();
  await screenshot(page, 'compare-table');

  // group by the learning rate: one mean line and one min – max band per group
  const reward = page.locator('[data-testid="metric-chart"][data-metric="reward_mean"]');
  await expect(reward.getByTestId('legend-item')).toHaveCount(4);
  await page.getByLabel('Group by').selectOption('learningRate');
  await expect(page.getByTestId('group-note')).toContainText('2 groups by learningRate');
  await expect(reward.getByTestId('legend-item')).toHaveText(['learningRate = 0.001 (2 runs)', 'learningRate = 0.01 (2 runs)']);
  await expect(reward.locator('path.recharts-curve.recharts-line-curve')).toHaveCount(2);
  await expect(reward.locator('.recharts-area')).toHaveCount(2);
  // hiding a group hides its band with it
  await reward.getByTestId('legend-item').first().click();
  await expect(reward.locator('.recharts-area')).toHaveCount(1);
  await reward.getByTestId('legend-item').first().click();
  await screenshot(page, 'compare-grouped');

  // back to a line per run
  await page.getByLabel('Group by').selectOption('');
  await expect(reward.getByTestId('legend-item')).toHaveCount(4);
});

/** `#4f46e5` as the browser reports a style colour: `rgb(79, 70, 229)`. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

test('compare: a run keeps its colour grouped or not and as runs join or leave; groups keep theirs; default columns ranked', async ({ page }) => {
  test.setTimeout(120_000);
  const ids = await seedRuns(
    [
      { lr: 0.001, seed: 1, reward: 0.2, algorithm: 'grpo', groupSize: 4 },
      { lr: 0.01, seed: 2, reward: 0.6, algorithm: 'grpo', groupSize: 8 },
      { lr: 0.001, seed: 3, reward: 0.4, algorithm: 'ppo', groupSize: 4 },
      { lr: 0.01, seed: 4, reward: 0.8, algorithm: 'ppo', groupSize: 8 },
      { lr: 0.0001, seed: 5, reward: 0.3, algorithm: 'grpo', groupSize: 4 },
    ],
    'col',
  );
  const name = (i: number) => `col-${i + 1}-${tag}`;
  await signIn(page, 'admin', env.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  const table = page.getByTestId('compare-runs-table');
  const reward = page.locator('[data-testid="metric-chart"][data-metric="reward_mean"]');
  /** run name → its swatch colour in the runs table */
  const tableColors = async () =>
    Object.fromEntries(
      await table
        .getByTestId('compared-run')
        .evaluateAll((rows) =>
          rows.map((r) => [r.querySelector('td a')!.textContent!, r.querySelector('[data-testid="run-color"]')!.getAttribute('data-color')!]),
        ),
    ) as Record<string, string>;
  /** legend label → its swatch colour on the reward chart */
  const legendColors = async () =>
    Object.fromEntries(
      await reward
        .getByTestId('legend-item')
        .evaluateAll((items) => items.map((b) => [b.textContent!, (b.querySelector('span') as HTMLElement).style.backgroundColor])),
    ) as Record<string, string>;
  const open = async (which: number[]) => {
    await page.goto(`/runs/compare?ids=${which.map((i) => ids[i]).join(',')}`);
    await expect(table.getByTestId('compared-run')).toHaveCount(which.length);
    await expect(reward.getByTestId('legend-item')).toHaveCount(which.length);
  };

  // four runs: learning rate, algorithm, group size and seed differ; the default columns put
  // learning rate and algorithm first (not configDiff's alphabetical algorithm, groupSize, …)
  await open([0, 1, 2, 3]);
  await expect(table.locator('thead th')).toHaveText([
    'run↕',
    'status↕',
    'iteration↕',
    'reward (last)↕',
    'held-out pass@1 (last)↕',
    'learningRate↕',
    'algorithm↕',
    'groupSize↕',
    'seed↕',
  ]);
  // the group-by menu offers them in the same order
  await expect(page.getByLabel('Group by').locator('option')).toHaveText(['none (a line per run)', 'learningRate', 'algorithm', 'groupSize', 'seed']);
  const runColor = await tableColors();
  expect(new Set(Object.values(runColor)).size, 'four runs, four colours').toBe(4);
  // each chart line is its run's table colour
  const lines = await legendColors();
  for (let i = 0; i < 4; i++) expect(lines[name(i)], name(i)).toBe(rgb(runColor[name(i)]!));

  // grouped by learning rate: runs keep their colours in the table, each group has its own
  await page.getByLabel('Group by').selectOption('learningRate');
  await expect(reward.getByTestId('legend-item')).toHaveText(['learningRate = 0.001 (2 runs)', 'learningRate = 0.01 (2 runs)']);
  expect(await tableColors()).toEqual(runColor);
  const groupLines = await legendColors();
  const groupOfRun = async () =>
    Object.fromEntries(
      await table
        .getByTestId('compared-run')
        .evaluateAll((rows) =>
          rows.map((r) => [r.querySelector('td a')!.textContent!, r.querySelector('[data-testid="group-color"]')!.getAttribute('data-color')!]),
        ),
    ) as Record<string, string>;
  const byLr = await groupOfRun();
  expect(groupLines['learningRate = 0.001 (2 runs)']).toBe(rgb(byLr[name(0)]!));
  expect(groupLines['learningRate = 0.01 (2 runs)']).toBe(rgb(byLr[name(1)]!));
  expect(byLr[name(2)]).toBe(byLr[name(0)]);
  expect(byLr[name(0)]).not.toBe(byLr[name(1)]);
  await screenshot(page, 'compare-colours-grouped');

  // grouped by algorithm, then not at all: the runs' colours never moved
  await page.getByLabel('Group by').selectOption('algorithm');
  await expect(reward.getByTestId('legend-item')).toHaveText(['algorithm = grpo (2 runs)', 'algorithm = ppo (2 runs)']);
  expect(await tableColors()).toEqual(runColor);
  await page.getByLabel('Group by').selectOption('');
  await expect(reward.getByTestId('legend-item')).toHaveCount(4);
  expect(await legendColors()).toEqual(lines);

  // a fifth run joins: the four keep theirs; its learning rate is a new group, the others keep their colours
  await open([0, 1, 2, 3, 4]);
  const withFifth = await tableColors();
  for (let i = 0; i < 4; i++) expect(withFifth[name(i)], `${name(i)} with a run added`).toBe(runColor[name(i)]);
  expect(new Set(Object.values(withFifth)).size).toBe(5);
  await page.getByLabel('Group by').selectOption('learningRate');
  await expect(reward.getByTestId('legend-item')).toHaveCount(3);
  const moreGroups = await legendColors();
  expect(moreGroups['learningRate = 0.001 (2 runs)']).toBe(groupLines['learningRate = 0.001 (2 runs)']);
  expect(moreGroups['learningRate = 0.01 (2 runs)']).toBe(groupLines['learningRate = 0.01 (2 runs)']);

  // the last run leaves: the others keep theirs
  await open([0, 1, 2, 3]);
  expect(await tableColors()).toEqual(runColor);
  // the first run leaves: every run that had its own colour (the one its id picks) keeps it; one
  // that had stepped aside for the first run may take its own back
  await open([1, 2, 3, 4]);
  const without = await tableColors();
  const own = (i: number) => comparePalette[hashKey(ids[i]!) % comparePalette.length];
  for (let i = 1; i < 5; i++) {
    if (withFifth[name(i)] === own(i)) expect(without[name(i)], `${name(i)} with ${name(0)} gone`).toBe(withFifth[name(i)]);
    else expect(without[name(i)], `${name(i)} stepped aside for another`).toBe(runColors(ids.slice(1)).get(ids[i]!));
  }
  expect(new Set(Object.values(without)).size).toBe(4);
  await screenshot(page, 'compare-colours');
});
