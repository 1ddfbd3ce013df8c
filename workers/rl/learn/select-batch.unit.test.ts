import { describe, expect, it } from 'vitest';
import { defaultRunConfig, type RunConfig } from '@/core/run-config';
import { selectBatch, type BatchRow } from './select-batch';

// Plain rows: version ids 'v0'..'v3' are policy versions 0..3; the current version is 3.
const versionOf = new Map([
  ['v0', 0],
  ['v1', 1],
  ['v2', 2],
  ['v3', 3],
]);
const row = (
  id: string,
  o: { group?: number; status?: string; version?: string | null; reward?: number | null; disputed?: string; corrected?: number | null; suspect?: boolean } = {},
): BatchRow => ({
  e: { id, status: o.status ?? 'scored', groupIndex: o.group ?? 0, policyVersionId: o.version === undefined ? 'v3' : o.version },
  r:
    o.reward === null
      ? null
      : { value: o.reward ?? 1, disputed: o.disputed ?? null, correctedValue: o.corrected ?? null, components: o.suspect ? { suspect: 1 } : {} },
});
const config = (c: { maxStaleness?: number; disputed?: RunConfig['review']['disputed'] } = {}) => ({
  maxStaleness: c.maxStaleness ?? defaultRunConfig.maxStaleness,
  review: { ...defaultRunConfig.review, disputed: c.disputed ?? 'exclude' },
});
const ids = (b: { valid: BatchRow[] }) => b.valid.map(({ e }) => e.id);

describe('selectBatch: which episodes train, with what reward', () => {
  it('keeps scored episodes with a reward, in the order given', () => {
    const b = selectBatch(
      [
        row('a'),
        row('b', { status: 'sandbox_error', reward: null }),
        row('c', { status: 'running', reward: null }),
        row('d', { reward: null }),
        row('e', { reward: 0 }),
      ],
      { currentVersion: 3, versionOf, config: config() },
    );
    expect(ids(b)).toEqual(['a', 'e']);
    expect(b.rewards).toEqual([1, 0]);
    expect(b.trainEpisodes).toEqual([
      { id: 'a', reward: 1, group: 0 },
      { id: 'e', reward: 0, group: 0 },
    ]);
  });

  it('a reward the grader held for review trains only once a reviewer has corrected it', () => {
    const eps = [row('plain'), row('held', { suspect: true }), row('reviewed', { suspect: true, disputed: 'false_positive', corrected: 0 })];
    expect(ids(selectBatch(eps, { currentVersion: 3, versionOf, config: config({ disputed: 'replace' }) }))).toEqual(['plain', 'reviewed']);
    expect(selectBatch(eps, { currentVersion: 3, versionOf, config: config({ disputed: 'replace' }) }).rewards).toEqual([1, 0]);
    expect(ids(selectBatch(eps, { currentVersion: 3, versionOf, config: config() }))).toEqual(['plain']);
  });

  it('maxStaleness drops episodes sampled by a policy more than that many versions behind', () => {
    const eps = [
      row('now', { version: 'v3' }),
      row('one', { version: 'v2' }),
      row('two', { version: 'v1' }),
      row('three', { version: 'v0' }),
      row('unknown', { version: 'gone' }),
      row('none', { version: null }),
    ];
    expect(ids(selectBatch(eps, { currentVersion: 3, versionOf, config: config({ maxStaleness: 0 }) }))).toEqual(['now']);
    expect(ids(selectBatch(eps, { currentVersion: 3, versionOf, config: config({ maxStaleness: 1 }) }))).toEqual(['now', 'one']);
    expect(ids(selectBatch(eps, { currentVersion: 3, versionOf, config: config({ maxStaleness: 3 }) }))).toEqual(['now', 'one', 'two', 'three']);
    // an episode whose policy version is unknown counts as one older than v0
    expect(ids(selectBatch(eps, { currentVersion: 3, versionOf, config: config({ maxStaleness: 4 }) }))).toEqual([
      'now',
      'one',
      'two',
      'three',
      'unknown',
      'none',
    ]);
  });

  it("disputed 'exclude' drops a disputed reward; 'replace' trains on the reviewer's correction, or the original when there is none", () => {
    const eps = [
      row('plain', { reward: 1 }),
      row('fixed', { reward: 1, disputed: 'tests are wrong', corrected: 0.25 }),
      row('open', { reward: 0.5, disputed: 'unclear' }),
    ];
    const excluded = selectBatch(eps, { currentVersion: 3, versionOf, config: config({ disputed: 'exclude' }) });
    expect(ids(excluded)).toEqual(['plain']);
    expect(excluded.rewards).toEqual([1]);
    const replaced = selectBatch(eps, { currentVersion: 3, versionOf, config: config({ disputed: 'replace' }) });
    expect(ids(replaced)).toEqual(['plain', 'fixed', 'open']);
    expect(replaced.rewards).toEqual([1, 0.25, 0.5]);
    expect(replaced.trainEpisodes.map((e) => e.reward)).toEqual([1, 0.25, 0.5]);
  });

  it('groups rewards by task group and counts groups without signal', () => {
    const b = selectBatch(
      [
        row('a', { group: 0, reward: 1 }),
        row('b', { group: 0, reward: 1 }), // no signal
        row('c', { group: 1, reward: 0 }),
        row('d', { group: 1, reward: 1 }), // signal
        row('e', { group: 2, reward: 0 }), // alone: not counted as zero-variance
      ],
      { currentVersion: 3, versionOf, config: config() },
    );
    expect([...b.groups]).toEqual([
      [0, [1, 1]],
      [1, [0, 1]],
      [2, [0]],
    ]);
    expect(b.zeroVarianceGroups).toBe(1);
  });
});
