'use client';
import { Suspense, useEffect } from 'react';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useCurrentUser } from '@/components/session';
import { can } from '@/core/roles';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorNotice, Loading, NoAccess } from '@/components/ui/states';
import { Facts, PageHeader, Section } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { timeAgo } from '@/components/display-format';
import { CoverageFlag } from '@/components/review/coverage-flag';
import { DiagnosisPanel } from '@/components/review/diagnosis-panel';
import { GuidelinesPanel } from '@/components/review/guidelines-panel';
import { ItemView } from '@/components/review/item-view';
import { SHORTCUTS } from '@/components/review/shortcuts';
import { useReviewSession } from '@/components/review/use-review-session';
import { itemPosition } from '@/components/review/review-session';

function ShortcutList() {
  return (
    <ul className="grid grid-cols-1 gap-x-4 gap-y-0.5 text-xs text-slate-600 sm:grid-cols-2" data-testid="shortcuts">
      {SHORTCUTS.map(([k, what]) => (
        <li key={k}>
          <kbd className="rounded border border-slate-300 bg-slate-50 px-1 font-mono">{k}</kbd> {what}
        </li>
      ))}
    </ul>
  );
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
  const me = useCurrentUser();
  const allowed = can(me.role, 'review');
  const { state, open, done, item, claim, submit, noteRef, rewardRef, setForm, show, next, previous, skip, claimNext, doSubmit, autoAdvance, setAutoAdvance } =
    useReviewSession({
      runId,
      username: me.username,
      enabled: allowed,
    });
  const { currentId, form, help, message } = state;
  // Each item opens at the top, task and tests first: the page would otherwise keep the
  // previous item's scroll position (its verdict box), and a fast reviewer could judge an
  // item without having seen it.
  const shownId = item.data?.id;
  useEffect(() => {
    if (currentId) window.scrollTo({ top: 0, behavior: 'instant' });
  }, [currentId, shownId]);

  if (!allowed) return <NoAccess page="the review queue" role={me.role} needs="reviewer or admin" />;

  const disputed = item.data?.verdict === 'false_negative' || item.data?.verdict === 'false_positive';
  const myCount = state.trail.length;
  return (
    <>
      <title>Review · Crucible</title>
      <PageHeader
        title="Review"
        subtitle={
          runId ? (
            <>
              Reviewing one run&apos;s items only (
              <span className="font-mono" data-testid="review-scope">
                {runId.slice(0, 8)}
              </span>
              ) ·{' '}
              <Link className="underline" href="/review">
                all runs
              </Link>
            </>
          ) : (
            "Spot-check rewards: at least 5% of every run's scored episodes"
          )
        }
        actions={
          currentId ? (
            <>
              <Button onClick={previous}>← Previous</Button>
              <Button onClick={() => void skip()}>Skip</Button>
              <Button variant="primary" onClick={next}>
                Next →
              </Button>
              <Button variant="ghost" onClick={() => show(null)}>
                Back to queue
              </Button>
            </>
          ) : (
            <Button variant="primary" onClick={() => void claimNext()} disabled={claim.isPending} data-testid="start-reviewing">
              Start reviewing <kbd className="text-xs opacity-70">j</kbd>
            </Button>
          )
        }
      />
      <CoverageFlag linkTo="review" />
      {message && (
        <div role="status" data-testid="review-message" className="mb-3 rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm">
          {message}
        </div>
      )}
      {help && (
        <div role="dialog" aria-label="Keyboard shortcuts" className="mb-3 rounded border border-accent bg-white p-3 shadow">
          <h2 className="mb-1 text-sm font-semibold">Keyboard shortcuts</h2>
          <ShortcutList />
        </div>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[1fr_20rem]">
        <div className="min-w-0">
          {currentId ? (
            item.isPending ? (
              <Loading label="Loading item…" />
            ) : item.isError ? (
              <ErrorNotice title="Could not load the item" error={item.error} onRetry={() => item.refetch()} />
            ) : (
              <>
                {disputed && <DiagnosisPanel reviewId={item.data.id} />}
                <ItemView
                  item={item.data}
                  form={form}
                  setForm={setForm}
                  onSubmit={() => void doSubmit()}
                  submitting={submit.isPending}
                  noteRef={noteRef}
                  rewardRef={rewardRef}
                  position={itemPosition(state, open.data && { total: open.data.total, includesShown: open.data.items.some((i) => i.id === currentId) })}
                  autoAdvance={autoAdvance}
                  setAutoAdvance={setAutoAdvance}
                />
              </>
            )
          ) : (
            <Section title="Queue (in the order items are handed out)">
              <div className="mb-3" data-testid="queue-counts">
                <Facts
                  items={[
                    ['Open', open.data?.total ?? '…'],
                    ['Reviewed', done.data?.total ?? '…'],
                    [
                      'Reviewed by you',
                      <span key="mine" data-testid="my-reviewed">
                        {myCount}
                      </span>,
                    ],
                  ]}
                />
              </div>
              {open.isPending ? (
                <Loading label="Loading queue…" />
              ) : open.isError ? (
                <ErrorNotice error={open.error} onRetry={() => open.refetch()} />
              ) : (
                <DataTable
                  label="Review queue"
                  rows={open.data.items}
                  rowKey={(i) => i.id}
                  rowTestId="queue-row"
                  empty={<EmptyState title="Nothing to review">New items arrive as episodes are scored.</EmptyState>}
                  columns={[
                    { key: 'task', header: 'task', cell: (i) => i.taskExternalId ?? '—' },
                    { key: 'reason', header: 'sample reason', className: 'font-mono text-xs', cell: (i) => i.sampleReason },
                    { key: 'slot', header: 'slot', cell: (i) => i.slot },
                    {
                      key: 'claimed',
                      header: 'claimed by',
                      cell: (i) => (i.reviewer && i.claimExpiresAt && new Date(i.claimExpiresAt).getTime() > open.dataUpdatedAt ? i.reviewer : '—'),
                    },
                    { key: 'queued', header: 'queued', cell: (i) => timeAgo(i.createdAt) },
                  ]}
                />
              )}
            </Section>
          )}
        </div>
        <aside>
          <Section title="Shortcuts">
            <ShortcutList />
          </Section>
          <GuidelinesPanel role={me.role} />
        </aside>
      </div>
    </>
  );
}
