'use client';
import { runsAgentEpisodes } from '@/core/task-kinds';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { StatusBadge } from '@/components/ui/status-badge';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { Facts, PageHeader, Section } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { TurnCard } from '@/components/episodes/turn-card';
import { AgentTurnCard } from '@/components/episodes/agent-turn-card';
import { GradingRun } from '@/components/episodes/grading-run';
import { EpisodeTimeline } from '@/components/episodes/episode-timeline';
import { testCases } from '@/components/episodes/turn-outcome';
import { durationBetween, formatDateTime, formatNumber } from '@/components/display-format';

const inProgress = (s: string) => s === 'pending' || s === 'running';

export default function EpisodePage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.episodes.get.queryOptions({ id }),
    refetchInterval: (query) => (query.state.data && inProgress(query.state.data.episode.status) ? 3_000 : false),
  });
  if (q.isPending) return <Loading label="Loading trajectory…" />;
  if (q.isError) {
    return (
      <div className="space-y-2">
        <ErrorNotice title="Could not load the episode" error={q.error} onRetry={() => q.refetch()} />
        <Link className="text-accent underline" href="/runs">
          Back to runs
        </Link>
      </div>
    );
  }
  const { episode: e, task, turns, reward, runName, repoTests } = q.data;
  const sortedTurns = [...turns].sort((a, b) => a.index - b.index);
  const cases = task ? testCases(task.tests, task.entryPoint) : [];
  // an agent episode (repository task): turns of tool calls, graded in a clean sandbox at the end
  const agent = runsAgentEpisodes(task?.kind) || e.grading !== null || turns.some((t) => t.toolCalls !== null);
  return (
    <>
      <title>{`Episode ${e.id.slice(0, 8)} · Crucible`}</title>
      <div className="mb-1 text-xs text-slate-500">
        <Link href="/runs" className="hover:underline">
          Runs
        </Link>{' '}
        /{' '}
        <Link href={`/runs/${e.runId}`} className="hover:underline">
          {runName}
        </Link>{' '}
        / episode <span className="font-mono">{e.id}</span>
      </div>
      <PageHeader
        title={
          <span className="flex items-center gap-2">
            Episode {e.id.slice(0, 8)} <StatusBadge status={e.status} />
          </span>
        }
        subtitle={
          <>
            {task ? `${agent ? 'Repository task' : 'Task'} ${task.externalId} (${task.language}, ${task.risk} risk)` : 'Task not recorded'}
            {' · runtime '}
            <span className="font-mono" data-testid="episode-runtime">
              {e.runtime ?? 'not recorded'}
            </span>
          </>
        }
      />
      {e.error && (
        <div role="alert" className="mb-4 rounded border border-red-200 bg-red-50 px-3 py-2 text-red-800">
          Episode error: {e.error}
        </div>
      )}
      <Section title="Overview">
        <Facts
          items={[
            ['Iteration', e.iteration],
            ['Group / sample', `${e.groupIndex} / ${e.sampleIndex}`],
            ['Turns', e.turnsCount],
            ['End reason', e.endReason ?? '—'],
            ['Runtime', e.runtime ?? '—'],
            ['Attempt', e.attempt],
            ['Started', formatDateTime(e.startedAt)],
            ['Finished', formatDateTime(e.finishedAt)],
            ['Duration', durationBetween(e.startedAt, e.finishedAt)],
          ]}
        />
        <div className="mt-3 text-xs">
          <span className="text-slate-500">Environment hash </span>
          <code className="break-all font-mono" data-testid="env-hash">
            {e.envHash ?? reward?.envHash ?? '—'}
          </code>
        </div>
      </Section>
      <Section title="Reward">
        {reward ? (
          <div className="space-y-3">
            <Facts
              items={[
                [
                  'Reward',
                  <span key="v" data-testid="reward-value">
                    {formatNumber(reward.value, 4)}
                  </span>,
                ],
                ['Corrected', formatNumber(reward.correctedValue, 4)],
                ['Disputed', reward.disputed ?? 'no'],
                ['Harness', reward.harnessVersion],
                ['Scored', formatDateTime(reward.createdAt)],
              ]}
            />
            <div className="text-xs">
              <span className="text-slate-500">Scored under environment </span>
              <code className="break-all font-mono">{reward.envHash}</code>
              {e.envHash && reward.envHash !== e.envHash && (
                <span className="ml-2 font-medium text-red-700">differs from the episode&apos;s environment hash</span>
              )}
            </div>
            <DataTable
              label="Reward components"
              className="max-w-md"
              rows={Object.entries(reward.components)}
              rowKey={([k]) => k}
              columns={[
                { key: 'component', header: 'Component', cell: ([k]) => k },
                { key: 'value', header: 'Value', align: 'right', className: 'tabular-nums', cell: ([, v]) => formatNumber(v, 4) },
              ]}
            />
          </div>
        ) : q.data.rewardWithheld ? (
          <EmptyState title="Reward withheld">This episode is in a blind review queue: its reward is shown to reviewers once its review is done.</EmptyState>
        ) : (
          <EmptyState title="Not scored yet">
            {inProgress(e.status) ? 'The reward appears when the episode finishes.' : 'This episode ended without a reward.'}
          </EmptyState>
        )}
      </Section>
      {task && (
        <Section title="Task">
          <p className="mb-1 text-xs text-slate-500">
            {runsAgentEpisodes(task.kind) ? (
              <>
                Repository task · {task.language} · {task.split}
                {repoTests &&
                  ` · graded on ${repoTests.failToPass.length} FAIL_TO_PASS and ${repoTests.passToPass.length} PASS_TO_PASS tests (hidden from the agent until grading)`}
              </>
            ) : (
              <>
                Entry point <code className="font-mono">{task.entryPoint}</code>
              </>
            )}
          </p>
          <pre className="log-block bg-slate-800">{task.prompt}</pre>
        </Section>
      )}
      <Section title={`Trajectory (${sortedTurns.length} turn${sortedTurns.length === 1 ? '' : 's'})`}>
        {sortedTurns.length === 0 ? (
          <EmptyState title="No turns recorded">
            {inProgress(e.status) ? 'Turns appear as the policy acts.' : 'The episode ended before its first action.'}
          </EmptyState>
        ) : (
          <div className="space-y-3">
            {sortedTurns.map((t, i) =>
              agent ? (
                <AgentTurnCard key={t.id} turn={t} previousDiff={i > 0 ? sortedTurns[i - 1]!.workspaceDiff : null} />
              ) : (
                <TurnCard key={t.id} turn={t} cases={cases} />
              ),
            )}
          </div>
        )}
      </Section>
      {agent && (
        <Section title="Grading run">
          {e.grading ? (
            <GradingRun grading={e.grading} lists={repoTests} />
          ) : q.data.rewardWithheld ? (
            <EmptyState title="Grading withheld">
              This episode&apos;s run is in a blind review queue: its grading run (the reward and each test&apos;s result) is shown to reviewers once the review
              is done.
            </EmptyState>
          ) : (
            <EmptyState title="Not graded">
              {inProgress(e.status)
                ? 'The grading run appears when the agent submits or runs out of turns.'
                : 'This episode ended without a grading run (a sandbox failure ends an episode ungraded, never scored 0).'}
            </EmptyState>
          )}
        </Section>
      )}
      <Section title="Timeline">
        <EpisodeTimeline episodeId={e.id} live={inProgress(e.status)} />
      </Section>
    </>
  );
}
