'use client';
import { Suspense, useCallback, useEffect, useRef, useState } from 'react';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { Facts, PageHeader, Section, tableClass, tdClass, thClass } from '@/components/ui/layout-parts';
import { timeAgo } from '@/components/display-format';
import { CoverageFlag } from '@/components/review/coverage-flag';
import { DiagnosisPanel } from '@/components/review/diagnosis-panel';
import { GuidelinesPanel } from '@/components/review/guidelines-panel';
import { ItemView, type VerdictForm } from '@/components/review/item-view';
import { SHORTCUTS, shortcutFor, typingIn } from '@/components/review/shortcuts';

const emptyForm: VerdictForm = { verdict: null, reward: '', note: '' };

function ShortcutList() {
  return (
    <ul className="grid grid-cols-1 gap-x-4 gap-y-0.5 text-xs text-slate-600 sm:grid-cols-2" data-testid="shortcuts">
      {SHORTCUTS.map(([k, what]) => (
        <li key={k}><kbd className="rounded border border-slate-300 bg-slate-50 px-1 font-mono">{k}</kbd> {what}</li>
      ))}
    </ul>
  );
}

/** Items skipped in this browser session: the claim's exclude list, kept across reloads of the tab. */
const SKIPPED_KEY = 'crucible.review.skipped';
function loadSkipped(): string[] {
  try {
    const v: unknown = JSON.parse(sessionStorage.getItem(SKIPPED_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(-1000) : [];
  } catch {
    return [];
  }
}
function storeSkipped(ids: string[]): string[] {
  const kept = ids.slice(-1000);
  try {
    sessionStorage.setItem(SKIPPED_KEY, JSON.stringify(kept));
  } catch {
    // storage unavailable: the list lives for this page only
  }
  return kept;
}

/** The review queue and the keyboard-driven reviewing flow; `?run=ID` reviews one run's items only. */
export default function ReviewPage() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <ScopedReview />
    </Suspense>
  );
}

function ScopedReview() {
  const runId = useSearchParams().get('run') ?? undefined;
  return <ReviewScreen key={runId ?? 'all'} runId={runId} />;
}

function ReviewScreen({ runId }: { runId?: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useCurrentUser();
  const allowed = me.role === 'admin' || me.role === 'reviewer';
  const [currentId, setCurrentId] = useState<string | null>(null);
  // Items this reviewer has given verdicts on, oldest first: what k/← walks back through.
  const [trail, setTrail] = useState<string[]>([]);
  const [form, setForm] = useState<VerdictForm>(emptyForm);
  const [help, setHelp] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  // Skipped items are not handed out again in this session; once only they are left, j goes through them again.
  const skipped = useRef<string[]>([]);
  const [onlySkippedLeft, setOnlySkippedLeft] = useState(false);
  useEffect(() => {
    skipped.current = loadSkipped();
  }, []);
  const noteRef = useRef<HTMLTextAreaElement | null>(null);
  const rewardRef = useRef<HTMLInputElement | null>(null);

  const open = useQuery({ ...trpc.reviews.queue.queryOptions({ state: 'open', pageSize: 20, runId }), enabled: allowed });
  const done = useQuery({ ...trpc.reviews.queue.queryOptions({ state: 'done', pageSize: 200 }), enabled: allowed });
  const item = useQuery({ ...trpc.reviews.item.queryOptions({ id: currentId ?? '00000000-0000-4000-8000-000000000000' }), enabled: allowed && !!currentId });

  // Seed the trail with what this reviewer reviewed before, once.
  const seeded = useRef(false);
  useEffect(() => {
    if (seeded.current || !done.data) return;
    seeded.current = true;
    const mine = done.data.items.filter((i) => i.reviewer === me.username).map((i) => i.id);
    setTrail((t) => [...mine.filter((id) => !t.includes(id)), ...t]);
  }, [done.data, me.username]);

  // A freshly shown item starts from its saved verdict (editing) or blank.
  const loadedFor = useRef<string | null>(null);
  useEffect(() => {
    const d = item.data;
    if (!d || loadedFor.current === d.id) return;
    loadedFor.current = d.id;
    setForm({ verdict: d.verdict, reward: d.correctedReward == null ? '' : String(d.correctedReward), note: d.note ?? '' });
  }, [item.data]);

  const refreshLists = useCallback(() => {
    void qc.invalidateQueries({ queryKey: trpc.reviews.queue.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.reviews.coverage.queryKey() });
  }, [qc, trpc]);

  const show = useCallback((id: string | null) => {
    loadedFor.current = null;
    setForm(emptyForm);
    setCurrentId(id);
    (document.activeElement as HTMLElement | null)?.blur?.();
  }, []);

  const claim = useMutation(trpc.reviews.claim.mutationOptions());
  const submit = useMutation(trpc.reviews.submit.mutationOptions());

  /**
   * Claim the next item, never one skipped in this session (the server also gives back a
   * skipped claim in the same call). When only skipped items are left, say so; the next
   * claim after that drops the skip list and goes through them again.
   */
  const claimNext = useCallback(async (skip?: string) => {
    setMessage(null);
    if (skip) skipped.current = storeSkipped([...skipped.current.filter((x) => x !== skip), skip]);
    else if (onlySkippedLeft) skipped.current = storeSkipped([]);
    setOnlySkippedLeft(false);
    try {
      const { id, skippedLeft } = await claim.mutateAsync({ runId, exclude: skipped.current });
      if (!id && skippedLeft > 0) {
        setOnlySkippedLeft(true);
        setMessage(`Only ${skippedLeft === 1 ? 'the 1 item' : `the ${skippedLeft} items`} you skipped ${skippedLeft === 1 ? 'is' : 'are'} left. Press j to go through them again.`);
      } else if (!id) setMessage(runId ? 'Nothing left to review in this run.' : 'The queue is empty: nothing left to review.');
      show(id);
      refreshLists();
    } catch (e) {
      setMessage(`Could not claim an item: ${(e as Error).message}`);
    }
  }, [claim, show, refreshLists, runId, onlySkippedLeft]);

  const next = useCallback(() => {
    const at = currentId ? trail.indexOf(currentId) : -1;
    if (at >= 0 && at < trail.length - 1) show(trail[at + 1]!);
    else void claimNext();
  }, [currentId, trail, show, claimNext]);

  const previous = useCallback(() => {
    const at = currentId ? trail.indexOf(currentId) : -1;
    if (at > 0) show(trail[at - 1]!);
    else if (at === -1 && trail.length) show(trail[trail.length - 1]!);
    else setMessage('No earlier item of yours to go back to.');
  }, [currentId, trail, show]);

  const skip = useCallback(() => claimNext(currentId ?? undefined), [currentId, claimNext]);

  const doSubmit = useCallback(async () => {
    const d = item.data;
    if (!d) return;
    if (!form.verdict) {
      setMessage('Choose a verdict first (1–4).');
      return;
    }
    const reward = form.reward.trim() === '' || form.verdict === 'correct' ? null : Number(form.reward);
    if (reward !== null && (!Number.isFinite(reward) || reward < 0 || reward > 1)) {
      setMessage('A corrected reward is a number between 0 and 1.');
      return;
    }
    setMessage(null);
    try {
      await submit.mutateAsync({ id: d.id, verdict: form.verdict, correctedReward: reward, note: form.note.trim() || null });
      (document.activeElement as HTMLElement | null)?.blur?.();
      setTrail((t) => (t.includes(d.id) ? t : [...t, d.id]));
      loadedFor.current = null;
      await qc.invalidateQueries({ queryKey: trpc.reviews.item.queryKey({ id: d.id }) });
      void qc.invalidateQueries({ queryKey: trpc.reviews.diagnosis.queryKey({ id: d.id }) });
      refreshLists();
      setMessage(`Saved “${form.verdict}”. Press j for the next item.`);
    } catch (e) {
      setMessage(`Could not save the verdict: ${(e as Error).message}`);
    }
  }, [item.data, form, submit, qc, trpc, refreshLists]);

  useEffect(() => {
    if (!allowed) return;
    const onKey = (e: KeyboardEvent) => {
      const a = shortcutFor(e, typingIn(document.activeElement));
      if (!a) return;
      // On the queue screen only "start" keys mean something.
      if (!currentId && !['next', 'submit', 'help', 'previous'].includes(a.type)) return;
      e.preventDefault();
      switch (a.type) {
        case 'verdict': setForm((f) => ({ ...f, verdict: a.verdict, reward: a.verdict === 'correct' ? '' : f.reward })); break;
        case 'note': noteRef.current?.focus(); break;
        case 'reward': rewardRef.current?.focus(); break;
        case 'leave': (document.activeElement as HTMLElement | null)?.blur?.(); break;
        case 'submit': if (currentId) void doSubmit(); else void claimNext(); break;
        case 'next': next(); break;
        case 'previous': previous(); break;
        case 'skip': void skip(); break;
        case 'help': setHelp((h) => !h); break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [allowed, currentId, doSubmit, claimNext, next, previous, skip]);

  if (!allowed) return <ErrorNotice title="Reviewers only" error={new Error('reviewing rewards needs the reviewer or admin role')} />;

  const disputed = item.data?.verdict === 'false_negative' || item.data?.verdict === 'false_positive';
  const myCount = trail.length;
  return (
    <>
      <title>Review · Crucible</title>
      <PageHeader
        title="Review"
        subtitle={runId ? <>Reviewing one run&apos;s items only (<span className="font-mono" data-testid="review-scope">{runId.slice(0, 8)}</span>) · <Link className="underline" href="/review">all runs</Link></> : "Spot-check rewards: at least 5% of every run's scored episodes"}
        actions={
          currentId ? (
            <>
              <Button onClick={previous}>← Previous</Button>
              <Button onClick={() => void skip()}>Skip</Button>
              <Button variant="primary" onClick={next}>Next →</Button>
              <Button variant="ghost" onClick={() => show(null)}>Back to queue</Button>
            </>
          ) : (
            <Button variant="primary" onClick={() => void claimNext()} disabled={claim.isPending} data-testid="start-reviewing">
              Start reviewing <kbd className="text-xs opacity-70">j</kbd>
            </Button>
          )
        }
      />
      <CoverageFlag linkTo="review" />
      {message && <div role="status" data-testid="review-message" className="mb-3 rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm">{message}</div>}
      {help && (
        <div role="dialog" aria-label="Keyboard shortcuts" className="mb-3 rounded border border-accent bg-white p-3 shadow">
          <h2 className="mb-1 text-sm font-semibold">Keyboard shortcuts</h2>
          <ShortcutList />
        </div>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[1fr_20rem]">
        <div className="min-w-0">
          {currentId ? (
            item.isPending ? <Loading label="Loading item…" /> : item.isError ? <ErrorNotice title="Could not load the item" error={item.error} onRetry={() => item.refetch()} /> : (
              <>
                {disputed && <DiagnosisPanel reviewId={item.data.id} />}
                <ItemView item={item.data} form={form} setForm={setForm} onSubmit={() => void doSubmit()} submitting={submit.isPending} noteRef={noteRef} rewardRef={rewardRef} />
              </>
            )
          ) : (
            <Section title="Queue (in the order items are handed out)">
              <div className="mb-3" data-testid="queue-counts">
                <Facts items={[
                  ['Open', open.data?.total ?? '…'],
                  ['Reviewed', done.data?.total ?? '…'],
                  ['Reviewed by you', <span key="mine" data-testid="my-reviewed">{myCount}</span>],
                ]} />
              </div>
              {open.isPending ? <Loading label="Loading queue…" /> : open.isError ? <ErrorNotice error={open.error} onRetry={() => open.refetch()} /> : open.data.items.length === 0 ? (
                <EmptyState title="Nothing to review">New items arrive as episodes are scored.</EmptyState>
              ) : (
                <table className={tableClass} aria-label="Review queue">
                  <thead><tr><th className={thClass}>task</th><th className={thClass}>sample reason</th><th className={thClass}>slot</th><th className={thClass}>claimed by</th><th className={thClass}>queued</th></tr></thead>
                  <tbody>
                    {open.data.items.map((i) => {
                      const claimed = i.reviewer && i.claimExpiresAt && new Date(i.claimExpiresAt).getTime() > open.dataUpdatedAt;
                      return (
                        <tr key={i.id} data-testid="queue-row">
                          <td className={tdClass}>{i.taskExternalId ?? '—'}</td>
                          <td className={`${tdClass} font-mono text-xs`}>{i.sampleReason}</td>
                          <td className={tdClass}>{i.slot}</td>
                          <td className={tdClass}>{claimed ? i.reviewer : '—'}</td>
                          <td className={tdClass}>{timeAgo(i.createdAt)}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              )}
            </Section>
          )}
        </div>
        <aside>
          <Section title="Shortcuts"><ShortcutList /></Section>
          <GuidelinesPanel role={me.role} />
        </aside>
      </div>
    </>
  );
}
