import { describe, expect, it } from 'vitest';
import type { RepoTestResult } from '@/core/repo-tasks';
import { repoReward } from './repo-reward';

const t = (name: string, passed: boolean): RepoTestResult => ({ name, passed, outcome: passed ? 'passed' : 'failed' });

describe('repository test score (plain data)', () => {
  it('fraction of FAIL_TO_PASS, zero when a PASS_TO_PASS test breaks; resolved only when every test passes', () => {
    expect(repoReward([t('a', true), t('b', false)], [t('c', true)])).toEqual({ reward: 0.5, components: { f2p: 0.5, p2p: 1, p2p_all: 1, resolved: 0 } });
    expect(repoReward([t('a', true), t('b', true)], [t('c', true)])).toMatchObject({ reward: 1, components: { resolved: 1 } });
    expect(repoReward([t('a', true)], [t('c', false)])).toMatchObject({ reward: 0, components: { f2p: 1, p2p_all: 0, resolved: 0 } });
    // without the gate the fraction survives a broken PASS_TO_PASS test; resolved does not
    expect(repoReward([t('a', true)], [t('c', false)], { p2pGate: false })).toMatchObject({ reward: 1, components: { resolved: 0 } });
  });

  it('a node:test suite listed with its nested tests counts through them only, not twice', () => {
    const f2p = [
      t('test/a.test.js::add', false),
      t('test/a.test.js::add > small', true),
      t('test/a.test.js::add > zero', false),
      t('test/a.test.js::mul', true),
    ];
    // leaves: add > small (pass), add > zero (fail), mul (pass): 2 of 3, not 2 of 4
    expect(repoReward(f2p, []).components.f2p).toBeCloseTo(2 / 3, 12);
    // a name that only starts like another is not nested in it
    expect(repoReward([t('x::add', false), t('x::addition', true)], []).components.f2p).toBe(0.5);
  });
});
