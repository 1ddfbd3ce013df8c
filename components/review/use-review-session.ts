'use client';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import type { VerdictForm } from './item-view';
import {
  contradiction,
  initialSession,
  keyApplies,
  nextStep,
  previousStep,
  reviewSession,
  skippedForClaim,
  SKIPPED_LIMIT,
  verdictToSubmit,
} from './review-session';
import { shortcutFor, typingIn } from './shortcuts';

/** Items skipped in this browser session: the claim's exclude list, kept across reloads of the tab. */
const SKIPPED_KEY = 'crucible.review.skipped';
function loadSkipped(): string[] {
  try {
    const v: unknown = JSON.parse(sessionStorage.getItem(SKIPPED_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(-SKIPPED_LIMIT) : [];
  } catch {
    return [];
  }
}
function storeSkipped(ids: string[]): void {
  try {
    sessionStorage.setItem(SKIPPED_KEY, JSON.stringify(ids));
  } catch {
    // storage unavailable: the list lives for this page only
  }
}

/** The reviewer's "auto-advance after a verdict" choice, kept across visits in this browser. */
const AUTO_ADVANCE_KEY = 'crucible.review.autoAdvance';
function loadAutoAdvance(): boolean {
  if (typeof window === 'undefined') return false;
  try {
    return localStorage.getItem(AUTO_ADVANCE_KEY) === '1';
  } catch {
    return false;
  }
}
function storeAutoAdvance(on: boolean): void {
  try {
    localStorage.setItem(AUTO_ADVANCE_KEY, on ? '1' : '0');
  } catch {
    // storage unavailable: the choice lives for this page only
  }
}

const blur = () => (document.activeElement as HTMLElement | null)?.blur?.();

/**
 * A reviewer's session on /review: the state machine of review-session.ts run against the
 * review procedures (claim, submit, item), plus the keyboard shortcuts. `runId` scopes the
 * claims to one run; `enabled` is false for users without the review capability.
 */
export function useReviewSession(o: { runId?: string; username: string; enabled: boolean }) {
  const { runId, username, enabled } = o;
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [state, dispatch] = useReducer(reviewSession, undefined, () => initialSession());
  // the latest state for callbacks that must not be re-created on every keystroke
  const latest = useRef(state);
  // the contradictory verdict already questioned (item, verdict, correction): its second submit saves it
  const questioned = useRef<string | null>(null);
  useEffect(() => {
    latest.current = state;
  }, [state]);
  const noteRef = useRef<HTMLTextAreaElement | null>(null);
  const rewardRef = useRef<HTMLInputElement | null>(null);

  // sessionStorage exists only in the browser: restore the skip list after mounting
  useEffect(() => dispatch({ type: 'restoreSkipped', skipped: loadSkipped() }), []);
  // the review screen renders only in the browser (after the session check), so storage is there
  const [autoAdvance, setAutoAdvanceState] = useState(loadAutoAdvance);
  const setAutoAdvance = useCallback((on: boolean) => {
    setAutoAdvanceState(on);
    storeAutoAdvance(on);
  }, []);
  const autoAdvanceRef = useRef(autoAdvance);
  useEffect(() => {
    autoAdvanceRef.current = autoAdvance;
  }, [autoAdvance]);

  const open = useQuery({ ...trpc.reviews.queue.queryOptions({ state: 'open', pageSize: 20, runId }), enabled });
  const done = useQuery({ ...trpc.reviews.queue.queryOptions({ state: 'done', pageSize: 200 }), enabled });
  const item = useQuery({
    ...trpc.reviews.item.queryOptions({ id: state.currentId ?? '00000000-0000-4000-8000-000000000000' }),
    enabled: enabled && !!state.currentId,
  });

  // Seed the trail with what this reviewer reviewed before, once.
  useEffect(() => {
    if (done.data) dispatch({ type: 'seedTrail', mine: done.data.items.filter((i) => i.reviewer === username).map((i) => i.id) });
  }, [done.data, username]);

  // A freshly shown item starts from its saved verdict (editing) or blank.
  useEffect(() => {
    if (item.data) dispatch({ type: 'itemLoaded', item: item.data });
  }, [item.data]);

  const refreshLists = useCallback(() => {
    void qc.invalidateQueries({ queryKey: trpc.reviews.queue.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.reviews.coverage.queryKey() });
  }, [qc, trpc]);

  const show = useCallback((id: string | null) => {
    dispatch({ type: 'show', id });
    blur();
  }, []);

  const claim = useMutation(trpc.reviews.claim.mutationOptions());
  const submit = useMutation(trpc.reviews.submit.mutationOptions());

  /**
   * Claim the next item, never one skipped in this session (the server also gives back a
   * skipped claim in the same call). When only skipped items are left, say so; the next
   * claim after that drops the skip list and goes through them again.
   */
  const claimNext = useCallback(
    async (skip?: string) => {
      const exclude = skippedForClaim(latest.current, skip);
      storeSkipped(exclude);
      dispatch({ type: 'claimStarted', skip });
      try {
        const { id, skippedLeft } = await claim.mutateAsync({ runId, exclude });
        dispatch({ type: 'claimed', id, skippedLeft, scopedToRun: !!runId });
        blur();
        refreshLists();
      } catch (e) {
        dispatch({ type: 'claimFailed', error: (e as Error).message });
      }
    },
    [claim, refreshLists, runId],
  );

  const next = useCallback(() => {
    const step = nextStep(latest.current);
    if ('show' in step) show(step.show);
    else void claimNext();
  }, [show, claimNext]);

  const previous = useCallback(() => {
    const step = previousStep(latest.current);
    if ('show' in step) show(step.show);
    else dispatch({ type: 'message', message: step.message });
  }, [show]);

  const skip = useCallback(() => claimNext(latest.current.currentId ?? undefined), [claimNext]);

  const doSubmit = useCallback(async () => {
    const d = item.data;
    if (!d) return;
    const v = verdictToSubmit(latest.current.form);
    if ('error' in v) return dispatch({ type: 'message', message: v.error });
    // a self-contradicting verdict is questioned once; submitting the same one again saves it
    const question = contradiction(v, d.revealed ? d.reward : null);
    const asked = `${d.id}:${v.verdict}:${v.correctedReward}`;
    if (question && questioned.current !== asked) {
      questioned.current = asked;
      return dispatch({ type: 'message', message: `${question} Fix it, or press Enter again to save it as it is.` });
    }
    questioned.current = null;
    dispatch({ type: 'message', message: null });
    try {
      await submit.mutateAsync({ id: d.id, ...v });
      blur();
      dispatch({ type: 'submitted', id: d.id, verdict: v.verdict });
      await qc.invalidateQueries({ queryKey: trpc.reviews.item.queryKey({ id: d.id }) });
      void qc.invalidateQueries({ queryKey: trpc.reviews.diagnosis.queryKey({ id: d.id }) });
      refreshLists();
    } catch (e) {
      dispatch({ type: 'message', message: `Could not save the verdict: ${(e as Error).message}` });
      return;
    }
    if (autoAdvanceRef.current) next();
  }, [item.data, submit, qc, trpc, refreshLists, next]);

  const currentId = state.currentId;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const a = shortcutFor(e, typingIn(document.activeElement));
      if (!a || !keyApplies(a, currentId)) return;
      e.preventDefault();
      switch (a.type) {
        case 'verdict':
          dispatch({ type: 'verdictKey', verdict: a.verdict });
          break;
        case 'note':
          noteRef.current?.focus();
          break;
        case 'reward':
          rewardRef.current?.focus();
          break;
        case 'leave':
          blur();
          break;
        case 'submit':
          if (currentId) void doSubmit();
          else void claimNext();
          break;
        case 'next':
          next();
          break;
        case 'previous':
          previous();
          break;
        case 'skip':
          void skip();
          break;
        case 'help':
          dispatch({ type: 'toggleHelp' });
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled, currentId, doSubmit, claimNext, next, previous, skip]);

  return {
    state,
    open,
    done,
    item,
    claim,
    submit,
    noteRef,
    rewardRef,
    setForm: (form: VerdictForm) => dispatch({ type: 'form', form }),
    show,
    next,
    previous,
    skip,
    claimNext,
    doSubmit,
    autoAdvance,
    setAutoAdvance,
  };
}
