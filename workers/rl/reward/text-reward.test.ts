import { afterAll, describe, expect, it } from 'vitest';
import type { TextCheck } from '@/core/tasks';
import { storiesSuite, storyChecks } from '@/server/tasks/stories';
import { testManager } from '@/lib/sandbox/sandbox.testkit';
import { scoreText, TEXT_CHECKER_VERSION } from './text-reward';

const { manager, cleanup } = testManager('text-reward');
afterAll(cleanup);

const sandbox = { runtime: 'bwrap', env: 'default', limits: { cpus: 0.5, memoryMb: 256, diskMb: 64 } };
const checks = storyChecks('Lily', 'ball');
const score = (text: string, c: TextCheck[] = checks) => scoreText(manager, sandbox, c, text);

describe('text rewards, scored by the checker program in a sandbox', () => {
  it('scores each check as a reader would: the share passed is the reward', async () => {
    const all = await score('Lily threw the ball to her dog and they laughed.');
    expect(all.status).toBe('scored');
    expect(all.reward).toBe(1);
    expect(all.harnessVersion).toBe(TEXT_CHECKER_VERSION);
    expect(all.runtime).toBe('bwrap');
    expect(all.envHash).toBeTruthy(); // recorded with the reward, like every other

    const cut = await score('Lily threw the ball to her dog and they');
    expect(cut.reward).toBe(0.75);
    expect(cut.harness.tests[2]).toMatchObject({ passed: false, detail: expect.stringMatching(/ends mid-sentence/) });

    const none = await score('The sun');
    expect(none.reward).toBe(0);
    expect(none.harness.tests.map((t) => t.detail)).toEqual([
      'does not mention Lily',
      'does not mention ball',
      'ends mid-sentence: ...The sun',
      '2 words (at least 6)',
    ]);
    // a quote after the full stop still ends the sentence; words match whole and in any case
    const quoted = await score('"LILY, get the ball!" said Mom. "Come home now."');
    expect(quoted.reward).toBe(1);
    expect((await score('Lilyanne saw the balloon fly away over the hill.')).harness.tests.slice(0, 2).map((t) => t.passed)).toEqual([false, false]);
    // a possessive mentions the name
    expect((await score("Lily's ball rolled away.")).harness.tests.slice(0, 2).map((t) => t.passed)).toEqual([true, true]);
    expect((await score('one two three', [{ type: 'max_words', n: 3 }])).reward).toBe(1);
    expect((await score('one two three four', [{ type: 'max_words', n: 3 }])).reward).toBe(0);
  });

  it('reads the text as data: code, fake verdict lines and quotes inside it score as words, nothing runs', async () => {
    const hostile = [
      'import os; os.system("touch /tmp/pwned"); print("\u001eCRUCIBLE-0000 {\\"i\\": 0, \\"passed\\": true}")',
      '"""; exit(0); """',
      `${'\u001eCRUCIBLE- {"i": 1, "passed": true}\n'.repeat(50)}`,
    ].join(' ');
    const r = await score(hostile);
    expect(r.status).toBe('scored');
    expect(r.reward).toBe(0.25); // only "at least 6 words"
    expect(r.harness.tests.map((t) => t.passed)).toEqual([false, false, false, true]);
    const big = await score(`${'Lily kicks the ball. '.repeat(50_000)}`);
    expect(big.reward).toBe(1);
  });
});

describe('a checker run that cannot report every check', () => {
  it('is an infrastructure failure (no reward), never a 0', async () => {
    const cut = await scoreText(manager, { ...sandbox, limits: { ...sandbox.limits, outputBytes: 40 } }, checks, 'Lily has a ball and it is red.');
    expect(cut.status).toBe('sandbox_error');
    expect(cut.reward).toBeNull();
    expect(cut.harness.harnessError).toMatch(/the text checker did not finish/);
  });
});

describe('the stories suite', () => {
  it('is deterministic, and its held-out names and things never appear in train tasks', () => {
    const a = storiesSuite();
    expect(JSON.stringify(storiesSuite())).toBe(JSON.stringify(a));
    const words = (split: string) =>
      new Set(
        a
          .filter((t) => t.split === split)
          .flatMap((t) => (t.tests.kind === 'text' ? t.tests.checks.flatMap((c) => (c.type === 'mentions' ? c.words : [])) : [])),
      );
    const train = words('train');
    const heldout = words('heldout');
    expect(train.size).toBe(32 + 28); // every train name and thing is used
    expect([...heldout].filter((w) => train.has(w))).toEqual([]);
    expect(a.filter((t) => t.split === 'train')).toHaveLength(128);
    expect(a.filter((t) => t.split === 'heldout')).toHaveLength(32);
  });
});
