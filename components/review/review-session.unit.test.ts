import { describe, expect, it } from 'vitest';
import {
  emptyForm,
  initialSession,
  itemPosition,
  keyApplies,
  nextStep,
  previousStep,
  reviewSession,
  skippedForClaim,
  verdictToSubmit,
  contradiction,
  type ReviewSession,
  type SessionEvent,
} from './review-session';

const run = (events: SessionEvent[], from: ReviewSession = initialSession()) => events.reduce(reviewSession, from);

describe('review session state machine (plain data)', () => {
  it('seeds the trail once with earlier verdicts, before this session’s', () => {
    const s = run([
      { type: 'submitted', id: 'c', verdict: 'correct' },
      { type: 'seedTrail', mine: ['a', 'b', 'c'] },
      { type: 'seedTrail', mine: ['x'] },
    ]);
    expect(s.trail).toEqual(['a', 'b', 'c']);
  });

  it('a shown item loads its saved verdict into the form once; showing another clears it', () => {
    const item = { id: 'a', verdict: 'false_negative' as const, correctedReward: 1, note: 'tests wrong' };
    let s = run([
      { type: 'show', id: 'a' },
      { type: 'itemLoaded', item },
    ]);
    expect(s.form).toEqual({ verdict: 'false_negative', reward: '1', note: 'tests wrong' });
    s = run(
      [
        { type: 'form', form: { ...s.form, note: 'edited' } },
        { type: 'itemLoaded', item },
      ],
      s,
    );
    expect(s.form.note).toBe('edited'); // a refetch does not overwrite what the reviewer typed
    expect(run([{ type: 'itemLoaded', item: { ...item, id: 'other' } }], initialSession()).form).toEqual(emptyForm); // not the shown item
    expect(run([{ type: 'show', id: 'b' }], s).form).toEqual(emptyForm);
  });

  it('verdict key "correct" clears a corrected reward; others keep it', () => {
    const s = run([
      { type: 'show', id: 'a' },
      { type: 'form', form: { verdict: null, reward: '0.5', note: '' } },
    ]);
    expect(run([{ type: 'verdictKey', verdict: 'false_positive' }], s).form).toEqual({ verdict: 'false_positive', reward: '0.5', note: '' });
    expect(run([{ type: 'verdictKey', verdict: 'correct' }], s).form).toEqual({ verdict: 'correct', reward: '', note: '' });
  });

  it('j walks forward on the trail, then claims; k walks back, or says there is nothing', () => {
    const trail = ['a', 'b', 'c'];
    expect(nextStep({ currentId: 'a', trail })).toEqual({ show: 'b' });
    expect(nextStep({ currentId: 'c', trail })).toEqual({ claim: true });
    expect(nextStep({ currentId: null, trail })).toEqual({ claim: true });
    expect(previousStep({ currentId: 'b', trail })).toEqual({ show: 'a' });
    expect(previousStep({ currentId: 'new', trail })).toEqual({ show: 'c' });
    expect(previousStep({ currentId: 'a', trail })).toEqual({ message: 'No earlier item of yours to go back to.' });
    expect(previousStep({ currentId: null, trail: [] })).toHaveProperty('message');
  });

  it('skipping moves the item to the end of the skip list; only skipped left says so, and the next claim clears the list', () => {
    let s = run([
      { type: 'restoreSkipped', skipped: ['x', 'y'] },
      { type: 'show', id: 'a' },
    ]);
    expect(skippedForClaim(s, 'x')).toEqual(['y', 'x']);
    s = run(
      [
        { type: 'claimStarted', skip: 'a' },
        { type: 'claimed', id: null, skippedLeft: 3, scopedToRun: false },
      ],
      s,
    );
    expect(s.skipped).toEqual(['x', 'y', 'a']);
    expect(s.currentId).toBeNull();
    expect(s.onlySkippedLeft).toBe(true);
    expect(s.message).toBe('Only the 3 items you skipped are left. Press j to go through them again.');
    expect(skippedForClaim(s)).toEqual([]);
    s = run([{ type: 'claimStarted' }, { type: 'claimed', id: 'x', skippedLeft: 0, scopedToRun: false }], s);
    expect(s).toMatchObject({ skipped: [], onlySkippedLeft: false, currentId: 'x', message: null });
  });

  it('an empty queue says so, scoped to the run when the session is', () => {
    expect(run([{ type: 'claimed', id: null, skippedLeft: 0, scopedToRun: false }]).message).toBe('The queue is empty: nothing left to review.');
    expect(run([{ type: 'claimed', id: null, skippedLeft: 0, scopedToRun: true }]).message).toBe('Nothing left to review in this run.');
    expect(run([{ type: 'claimed', id: null, skippedLeft: 1, scopedToRun: true }]).message).toBe(
      'Only the 1 item you skipped is left. Press j to go through them again.',
    );
  });

  it('a submitted verdict joins the trail once and reloads the form from the server', () => {
    const s = run([
      { type: 'show', id: 'a' },
      { type: 'itemLoaded', item: { id: 'a', verdict: null, correctedReward: null, note: null } },
      { type: 'submitted', id: 'a', verdict: 'unclear' },
      { type: 'submitted', id: 'a', verdict: 'unclear' },
    ]);
    expect(s.trail).toEqual(['a']);
    expect(s.formFor).toBeNull();
    expect(s.message).toBe('Saved “unclear”. Press j for the next item.');
  });

  it('the form submits a verdict, a corrected reward in [0, 1] (none for "correct") and a trimmed note', () => {
    expect(verdictToSubmit(emptyForm)).toEqual({ error: 'Choose a verdict first (1–4).' });
    expect(verdictToSubmit({ verdict: 'false_negative', reward: '1.5', note: '' })).toEqual({ error: 'A corrected reward is a number between 0 and 1.' });
    expect(verdictToSubmit({ verdict: 'false_negative', reward: ' 0.8 ', note: '  why ' })).toEqual({
      verdict: 'false_negative',
      correctedReward: 0.8,
      note: 'why',
    });
    expect(verdictToSubmit({ verdict: 'correct', reward: '0.3', note: '' })).toEqual({ verdict: 'correct', correctedReward: null, note: null });
  });

  it('questions a verdict that contradicts its own correction, only where the automatic reward is shown', () => {
    expect(contradiction({ verdict: 'false_positive', correctedReward: 0.8 }, 0.8)).toMatch(
      /“False positive” says the automatic reward \(0\.800\) is too high, but the corrected reward 0\.8 is not lower/,
    );
    expect(contradiction({ verdict: 'false_negative', correctedReward: 0.2 }, 0.5)).toMatch(/is too low, but the corrected reward 0\.2 is not higher/);
    expect(contradiction({ verdict: 'false_positive', correctedReward: 0.1 }, 0.8)).toBeNull();
    expect(contradiction({ verdict: 'false_negative', correctedReward: 1 }, 0)).toBeNull();
    expect(contradiction({ verdict: 'false_positive', correctedReward: null }, 0.8)).toBeNull(); // no correction given
    expect(contradiction({ verdict: 'false_positive', correctedReward: 0.9 }, null)).toBeNull(); // blind: not shown, not asked
    expect(contradiction({ verdict: 'unclear', correctedReward: 0.9 }, 0.9)).toBeNull();
  });

  it('on the queue screen only the start keys apply', () => {
    expect(keyApplies({ type: 'next' }, null)).toBe(true);
    expect(keyApplies({ type: 'skip' }, null)).toBe(false);
    expect(keyApplies({ type: 'verdict', verdict: 'correct' }, null)).toBe(false);
    expect(keyApplies({ type: 'skip' }, 'a')).toBe(true);
  });

  it('counts "item N of M" over the verdicts given since the page opened plus the open items', () => {
    const open = (total: number, includesShown = true) => ({ total, includesShown });
    // three open items; the reviewer had given a verdict on "old" before this page opened
    let s = run([
      { type: 'seedTrail', mine: ['old'] },
      { type: 'show', id: 'a' },
    ]);
    expect(itemPosition(s, undefined)).toBeNull();
    expect(itemPosition(s, open(3))).toEqual({ n: 1, m: 3 });
    // a run-scoped queue does not list the reviewer's own blind item: it is added
    expect(itemPosition(s, open(2, false))).toEqual({ n: 1, m: 3 });
    s = run([{ type: 'submitted', id: 'a', verdict: 'correct' }], s);
    // a is done now: 2 left open, and a counts as the first of 3
    expect(itemPosition(s, open(2))).toEqual({ n: 1, m: 3 });
    s = run([{ type: 'show', id: 'b' }], s);
    expect(itemPosition(s, open(2))).toEqual({ n: 2, m: 3 });
    s = run(
      [
        { type: 'submitted', id: 'b', verdict: 'unclear' },
        { type: 'show', id: 'a' },
      ],
      s,
    );
    expect(itemPosition(s, open(1))).toEqual({ n: 1, m: 3 });
    // an item judged before this page opened is not part of this count
    s = run([{ type: 'show', id: 'old' }], s);
    expect(itemPosition(s, open(1))).toBeNull();
    expect(itemPosition(run([{ type: 'show', id: null }], s), open(1))).toBeNull();
  });
});
