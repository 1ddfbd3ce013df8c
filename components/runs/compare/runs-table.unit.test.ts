import { describe, expect, it } from 'vitest';
import { defaultConfigColumns, nextSort, runsTableRows, sortRows } from './runs-table';
import { rankConfigFields } from './config-diff';
import { groupableFields } from './group-runs';

const runs = [
  { id: 'a', name: 'run-10', status: 'completed', currentIteration: 4, iterations: 4, config: { learningRate: 0.001, algorithm: 'grpo' } },
  { id: 'b', name: 'run-9', status: 'running', currentIteration: 1, iterations: 4, config: { learningRate: 0.01, algorithm: 'ppo' } },
  { id: 'c', name: 'Run-2', status: 'failed', currentIteration: 2, iterations: 8, config: { algorithm: 'grpo' } },
];
const samples = [
  { runId: 'a', name: 'reward_mean', step: 1, value: 0.1 },
  { runId: 'a', name: 'reward_mean', step: 4, value: 0.7 },
  { runId: 'a', name: 'reward_mean', step: 2, value: 0.9 },
  { runId: 'b', name: 'reward_mean', step: 1, value: 0.3 },
  { runId: 'b', name: 'heldout_pass_at_1', step: 0, value: 0.25 },
];

describe('the compare page runs table', () => {
  const rows = runsTableRows(runs, samples);
  const order = (r: typeof rows) => r.map((x) => x.id);

  it('takes each run’s last-step reward and held-out pass@1, and its flattened config', () => {
    expect(rows.map((r) => [r.id, r.reward, r.heldout, r.iteration])).toEqual([
      ['a', 0.7, null, '4 / 4'],
      ['b', 0.3, 0.25, '1 / 4'],
      ['c', null, null, '2 / 8'],
    ]);
    expect(rows[0]!.config.learningRate).toBe('0.001');
  });

  it('sorts numbers numerically (config values too), names naturally, empty cells last both ways', () => {
    expect(order(sortRows(rows, 'reward', 'desc'))).toEqual(['a', 'b', 'c']);
    expect(order(sortRows(rows, 'reward', 'asc'))).toEqual(['b', 'a', 'c']);
    expect(order(sortRows(rows, 'config:learningRate', 'desc'))).toEqual(['b', 'a', 'c']);
    expect(order(sortRows(rows, 'config:learningRate', 'asc'))).toEqual(['a', 'b', 'c']);
    expect(order(sortRows(rows, 'name', 'asc'))).toEqual(['c', 'b', 'a']);
    // b and c are both a quarter done: a tie, kept in order
    expect(order(sortRows(rows, 'progress', 'desc'))).toEqual(['a', 'b', 'c']);
    // ties keep the comparison's order
    expect(order(sortRows(rows, 'config:algorithm', 'asc'))).toEqual(['a', 'c', 'b']);
  });

  it('flips the direction on the same header and starts metrics high-first', () => {
    expect(nextSort({ key: 'name', dir: 'asc' }, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextSort({ key: 'name', dir: 'asc' }, 'reward')).toEqual({ key: 'reward', dir: 'desc' });
    expect(nextSort({ key: 'reward', dir: 'desc' }, 'config:seed')).toEqual({ key: 'config:seed', dir: 'asc' });
  });
});

describe('the default config columns', () => {
  it('rank learning rate, algorithm, model and suite first, then the other differing fields', () => {
    // configDiff's alphabetical order, as the page gets it
    const differing = ['concurrency', 'groupSize', 'algorithm', 'policy.kind', 'policy.model', 'seed', 'suite', 'learningRate'].sort();
    expect(rankConfigFields(differing)).toEqual(['learningRate', 'algorithm', 'policy.model', 'policy.kind', 'suite', 'concurrency', 'groupSize', 'seed']);
    expect(defaultConfigColumns(differing)).toEqual(['learningRate', 'algorithm', 'policy.model', 'policy.kind']);
    // only the fields that differ; the rest keep their order behind the ranked ones
    expect(defaultConfigColumns(['concurrency', 'seed', 'suite', 'temperature', 'topP'])).toEqual(['suite', 'concurrency', 'seed', 'temperature']);
    expect(defaultConfigColumns(['seed'])).toEqual(['seed']);
  });

  it('the group-by menu offers the fields in the same order', () => {
    const a = { seed: 1, suite: 'x', learningRate: 0.1, algorithm: 'grpo' };
    const b = { seed: 2, suite: 'y', learningRate: 0.2, algorithm: 'ppo' };
    expect(
      groupableFields([
        { id: 'a', name: 'a', config: a },
        { id: 'b', name: 'b', config: b },
      ]),
    ).toEqual(['learningRate', 'algorithm', 'suite', 'seed']);
  });
});
