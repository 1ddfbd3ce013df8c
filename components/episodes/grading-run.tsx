import type { EpisodeGrading } from '@/core/repo-tasks';
import { formatMs, formatNumber } from '../display-format';
import { Facts } from '../ui/layout-parts';
import { DataTable } from '../ui/data-table';
import { CollapsibleDiff } from './diff-view';
import { gradingTally, gradingTestRows, type RepoTestLists, type TestKind } from './grading-tests';

const outcomeClass: Record<string, string> = {
  passed: 'text-emerald-700',
  failed: 'text-red-700',
  error: 'text-red-700',
  skipped: 'text-amber-700',
  missing: 'text-amber-700',
};

const kindLabel = (k: TestKind | null) => k ?? 'other';
const kindClass = (k: TestKind | null) =>
  k === 'FAIL_TO_PASS' ? 'bg-sky-100 text-sky-800' : k === 'PASS_TO_PASS' ? 'bg-slate-100 text-slate-700' : 'bg-white text-slate-500';

const endLabels: Record<EpisodeGrading['end'], string> = {
  submitted: 'submitted',
  max_turns: 'ran out of turns',
  token_budget: 'ran out of tokens',
  time_budget: 'ran out of time',
  sandbox_error: 'sandbox error',
};

/**
 * A repository task's grading run (lib/agent/grade): the agent's patch applied to a fresh
 * pristine workspace in a new sandbox, the task's own tests restored and the hidden ones
 * added; each test's result from the grader's report, the tests' lists, what grading dropped.
 */
export function GradingRun({ grading, lists }: { grading: EpisodeGrading; lists: RepoTestLists | null }) {
  const rows = gradingTestRows(grading.tests, lists);
  const tally = gradingTally(rows);
  const infra = grading.status === 'infra_error';
  return (
    <div className="space-y-3" data-testid="grading-run">
      <Facts
        items={[
          [
            'Status',
            <span
              key="s"
              data-testid="grading-status"
              className={`rounded px-1.5 py-0.5 text-xs font-medium ${infra ? 'bg-red-100 text-red-800' : 'bg-emerald-100 text-emerald-800'}`}
            >
              {infra ? 'infra error (masked, not scored)' : 'graded'}
            </span>,
          ],
          [
            'Reward',
            <span key="r" data-testid="grading-reward">
              {grading.reward === null ? '— (masked)' : formatNumber(grading.reward, 4)}
            </span>,
          ],
          ['Episode end', endLabels[grading.end] ?? grading.end],
          ['Patch applied', grading.patchApplied ? 'yes' : 'no'],
          [
            'Grading runtime',
            <span key="rt" data-testid="grading-runtime">
              {grading.runtime}
            </span>,
          ],
          ['Grading took', formatMs(grading.durationMs)],
        ]}
      />
      <div className="grid grid-cols-1 gap-1 text-xs">
        <div className="min-w-0">
          <span className="text-slate-500">Environment hash </span>
          <code className="break-all font-mono" data-testid="grading-env-hash">
            {grading.envHash}
          </code>
        </div>
        <div className="min-w-0">
          <span className="text-slate-500">Pristine workspace </span>
          <code className="break-all font-mono">{grading.workspaceSha256}</code>
        </div>
      </div>
      {grading.error && (
        <div role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-xs text-red-800" data-testid="grading-error">
          {grading.error}
        </div>
      )}
      {Object.keys(grading.components).length > 0 && (
        <div className="flex flex-wrap gap-2 text-xs" aria-label="Grading components" data-testid="grading-components">
          {Object.entries(grading.components).map(([k, v]) => (
            <span key={k} className="rounded border border-slate-200 px-2 py-0.5">
              <span className="text-slate-500">{k}</span> <span className="font-mono tabular-nums">{formatNumber(v, 4)}</span>
            </span>
          ))}
        </div>
      )}
      <div>
        <div className="mb-1 flex flex-wrap gap-x-4 text-xs text-slate-600" data-testid="grading-tally">
          <span>
            FAIL_TO_PASS {tally.FAIL_TO_PASS.passed}/{tally.FAIL_TO_PASS.total} passed
          </span>
          <span>
            PASS_TO_PASS {tally.PASS_TO_PASS.passed}/{tally.PASS_TO_PASS.total} passed
          </span>
          {tally.other.total > 0 && (
            <span>
              other {tally.other.passed}/{tally.other.total} passed
            </span>
          )}
          {!lists && <span className="text-amber-700">the task&apos;s FAIL_TO_PASS / PASS_TO_PASS lists were not found, so tests are not labelled</span>}
        </div>
        <DataTable
          label="Grading tests"
          testId="grading-tests"
          rows={rows}
          rowKey={(r) => r.name}
          rowTestId="grading-test-row"
          empty={<p className="text-xs italic text-slate-500">No test results: the grader did not get to run the tests.</p>}
          columns={[
            { key: 'test', header: 'test', className: 'break-all font-mono text-xs', cell: (r) => r.name },
            {
              key: 'list',
              header: 'list',
              cell: (r) => <span className={`whitespace-nowrap rounded px-1.5 py-0.5 font-mono text-[11px] ${kindClass(r.kind)}`}>{kindLabel(r.kind)}</span>,
            },
            {
              key: 'outcome',
              header: 'outcome',
              className: (r) => `whitespace-nowrap font-medium ${outcomeClass[r.outcome] ?? ''}`,
              cell: (r) => (
                <>
                  {r.passed ? '✓ ' : '✗ '}
                  {r.outcome}
                </>
              ),
            },
            {
              key: 'detail',
              header: 'detail',
              className: 'font-mono text-xs',
              cell: (r) =>
                r.detail ? <span className="line-clamp-4 whitespace-pre-wrap break-all">{r.detail}</span> : <span className="text-slate-400">—</span>,
            },
          ]}
        />
      </div>
      {grading.suspect?.length ? (
        <div className="rounded border border-amber-300 bg-amber-50 p-2 text-xs" data-testid="grading-suspect">
          <span className="font-semibold text-amber-900">Held for review</span>{' '}
          <span className="text-amber-800">
            (the grader saw what could be reaching for the tests or the grader, or honest code: this reward stays out of the loss until a reviewer has seen it)
          </span>
          <ul className="mt-1 list-inside list-disc break-all font-mono text-amber-900">
            {grading.suspect.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="text-xs" data-testid="rejected-paths">
        <span className="font-semibold text-slate-600">Rejected paths</span>{' '}
        {grading.rejectedPaths.length ? (
          <>
            <span className="text-slate-500">
              (the agent&apos;s edits to test files or test configuration; grading dropped them and used the task&apos;s own)
            </span>
            <ul className="mt-1 list-inside list-disc font-mono text-red-800">
              {grading.rejectedPaths.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </>
        ) : (
          <span className="text-slate-500">none: the agent changed no test file or test configuration</span>
        )}
      </div>
      {grading.binarySkipped.length > 0 && <p className="text-xs text-amber-800">Binary files left out of the patch: {grading.binarySkipped.join(', ')}</p>}
      <CollapsibleDiff
        title="Patch graded"
        patch={grading.patch}
        note="the agent's changes against the pristine workspace"
        testId="grading-patch"
        bounded={false}
        fileNotes={Object.fromEntries(grading.rejectedPaths.map((p) => [p, 'dropped at grading: the task’s own version was used']))}
      />
    </div>
  );
}
