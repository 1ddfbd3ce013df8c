import type { VerdictForm } from './item-view';
import type { ShortcutAction, VerdictKey } from './shortcuts';

// A reviewer's session on /review as a pure state machine: which item is shown, the trail
// of items they gave verdicts on (what k/← walks back through), the verdict form, the
// session's skip list and the status message. components/review/use-review-session.ts
// runs it with the server calls; this file has no React and no I/O, so it is tested with
// plain data (review-session.unit.test.ts).

export const emptyForm: VerdictForm = { verdict: null, reward: '', note: '' };

export type ReviewSession = {
  currentId: string | null;
  /** items this reviewer gave verdicts on, oldest first */
  trail: string[];
  /** items given a verdict since this page opened, in order: what "item N of M" counts */
  visited: string[];
  /** whether the trail was seeded with the reviewer's earlier verdicts (done once) */
  seeded: boolean;
  form: VerdictForm;
  /** the item whose saved verdict the form was loaded from (null: load it when it arrives) */
  formFor: string | null;
  help: boolean;
  message: string | null;
  /** items skipped in this browser session: never handed out again while others are left */
  skipped: string[];
  /** the last claim found only skipped items: the next claim goes through them again */
  onlySkippedLeft: boolean;
};

export const initialSession = (skipped: string[] = []): ReviewSession => ({
  currentId: null,
  trail: [],
  visited: [],
  seeded: false,
  form: emptyForm,
  formFor: null,
  help: false,
  message: null,
  skipped,
  onlySkippedLeft: false,
});

/** The skip list keeps the newest this many items (it is stored in sessionStorage). */
export const SKIPPED_LIMIT = 1000;

export type SessionEvent =
  | { type: 'show'; id: string | null }
  | { type: 'restoreSkipped'; skipped: string[] }
  | { type: 'seedTrail'; mine: string[] }
  | { type: 'itemLoaded'; item: { id: string; verdict: VerdictKey | null; correctedReward: number | null; note: string | null } }
  | { type: 'form'; form: VerdictForm }
  | { type: 'verdictKey'; verdict: VerdictKey }
  | { type: 'claimStarted'; skip?: string }
  | { type: 'claimed'; id: string | null; skippedLeft: number; scopedToRun: boolean }
  | { type: 'claimFailed'; error: string }
  | { type: 'submitted'; id: string; verdict: VerdictKey }
  | { type: 'message'; message: string | null }
  | { type: 'toggleHelp' };

/** The skip list a claim sends (and the session keeps): `skip` moved to the end, or cleared after "only skipped left". */
export function skippedForClaim(s: Pick<ReviewSession, 'skipped' | 'onlySkippedLeft'>, skip?: string): string[] {
  if (skip) return [...s.skipped.filter((x) => x !== skip), skip].slice(-SKIPPED_LIMIT);
  return s.onlySkippedLeft ? [] : s.skipped;
}

const show = (s: ReviewSession, id: string | null): ReviewSession => ({ ...s, currentId: id, form: emptyForm, formFor: null });

export function reviewSession(s: ReviewSession, e: SessionEvent): ReviewSession {
  switch (e.type) {
    case 'show':
      return show(s, e.id);
    case 'restoreSkipped':
      return { ...s, skipped: e.skipped.slice(-SKIPPED_LIMIT) };
    case 'seedTrail':
      if (s.seeded) return s;
      return { ...s, seeded: true, trail: [...e.mine.filter((id) => !s.trail.includes(id)), ...s.trail] };
    case 'itemLoaded':
      // a freshly shown item starts from its saved verdict (editing) or blank, once
      if (e.item.id !== s.currentId || s.formFor === e.item.id) return s;
      return {
        ...s,
        formFor: e.item.id,
        form: { verdict: e.item.verdict, reward: e.item.correctedReward == null ? '' : String(e.item.correctedReward), note: e.item.note ?? '' },
      };
    case 'form':
      return { ...s, form: e.form };
    case 'verdictKey':
      return { ...s, form: { ...s.form, verdict: e.verdict, reward: e.verdict === 'correct' ? '' : s.form.reward } };
    case 'claimStarted':
      return { ...s, message: null, skipped: skippedForClaim(s, e.skip), onlySkippedLeft: false };
    case 'claimed': {
      let message: string | null = null;
      if (!e.id && e.skippedLeft > 0) {
        const one = e.skippedLeft === 1;
        message = `Only ${one ? 'the 1 item' : `the ${e.skippedLeft} items`} you skipped ${one ? 'is' : 'are'} left. Press j to go through them again.`;
      } else if (!e.id) message = e.scopedToRun ? 'Nothing left to review in this run.' : 'The queue is empty: nothing left to review.';
      return { ...show(s, e.id), message, onlySkippedLeft: !e.id && e.skippedLeft > 0 };
    }
    case 'claimFailed':
      return { ...s, message: `Could not claim an item: ${e.error}` };
    case 'submitted':
      // reload the form from the saved verdict when the item is fetched again
      return {
        ...s,
        trail: s.trail.includes(e.id) ? s.trail : [...s.trail, e.id],
        visited: s.visited.includes(e.id) ? s.visited : [...s.visited, e.id],
        formFor: null,
        message: `Saved “${e.verdict}”. Press j for the next item.`,
      };
    case 'message':
      return { ...s, message: e.message };
    case 'toggleHelp':
      return { ...s, help: !s.help };
  }
}

/** j/→: the next item on the trail, or a new claim past its end. */
export function nextStep(s: Pick<ReviewSession, 'currentId' | 'trail'>): { show: string } | { claim: true } {
  const at = s.currentId ? s.trail.indexOf(s.currentId) : -1;
  return at >= 0 && at < s.trail.length - 1 ? { show: s.trail[at + 1]! } : { claim: true };
}

/** k/←: the previous item on the trail (the newest from outside it), or why there is none. */
export function previousStep(s: Pick<ReviewSession, 'currentId' | 'trail'>): { show: string } | { message: string } {
  const at = s.currentId ? s.trail.indexOf(s.currentId) : -1;
  if (at > 0) return { show: s.trail[at - 1]! };
  if (at === -1 && s.trail.length) return { show: s.trail[s.trail.length - 1]! };
  return { message: 'No earlier item of yours to go back to.' };
}

/** The verdict the form submits, or what to fix first. */
export function verdictToSubmit(form: VerdictForm): { verdict: VerdictKey; correctedReward: number | null; note: string | null } | { error: string } {
  if (!form.verdict) return { error: 'Choose a verdict first (1–4).' };
  const reward = form.reward.trim() === '' || form.verdict === 'correct' ? null : Number(form.reward);
  if (reward !== null && (!Number.isFinite(reward) || reward < 0 || reward > 1)) return { error: 'A corrected reward is a number between 0 and 1.' };
  return { verdict: form.verdict, correctedReward: reward, note: form.note.trim() || null };
}

/**
 * A verdict that contradicts itself, asked about before it is saved: a false positive says the
 * automatic reward was too high, so its correction must be lower; a false negative, higher.
 * Only where the reviewer sees the automatic reward (not in blind review). Null when coherent.
 */
export function contradiction(v: { verdict: VerdictKey; correctedReward: number | null }, automatic: number | null | undefined): string | null {
  if (automatic == null || v.correctedReward === null) return null;
  const shown = automatic.toFixed(3);
  if (v.verdict === 'false_positive' && v.correctedReward >= automatic)
    return `“False positive” says the automatic reward (${shown}) is too high, but the corrected reward ${v.correctedReward} is not lower.`;
  if (v.verdict === 'false_negative' && v.correctedReward <= automatic)
    return `“False negative” says the automatic reward (${shown}) is too low, but the corrected reward ${v.correctedReward} is not higher.`;
  return null;
}

/**
 * "Item N of M" for the item shown: N counts the verdicts given since the page opened (this
 * one included), M adds the items still open in the queue. `open.total` may or may not count
 * the shown item while it has no verdict (a run-scoped queue leaves out the reviewer's own
 * blind item), so `open.includesShown` says which. null when nothing is shown, the open count
 * is not known yet, or the item is an earlier verdict from before this page opened.
 */
export function itemPosition(
  s: Pick<ReviewSession, 'currentId' | 'visited' | 'trail'>,
  open: { total: number; includesShown: boolean } | undefined,
): { n: number; m: number } | null {
  if (!s.currentId || !open) return null;
  const at = s.visited.indexOf(s.currentId);
  if (at >= 0) return { n: at + 1, m: s.visited.length + open.total };
  if (s.trail.includes(s.currentId)) return null;
  return { n: s.visited.length + 1, m: s.visited.length + open.total + (open.includesShown ? 0 : 1) };
}

/** Whether a shortcut means something here: on the queue screen (no item) only the "start" keys do. */
export function keyApplies(a: ShortcutAction, currentId: string | null): boolean {
  return !!currentId || ['next', 'submit', 'help', 'previous'].includes(a.type);
}
