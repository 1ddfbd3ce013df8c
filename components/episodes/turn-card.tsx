import { formatMs, formatNumber } from '../display-format';
import { DataTable } from '../ui/data-table';
import type { TurnTestResult } from '@/core/tasks';
import { candidateOutput, exactTestRows, testRows, turnOutcome, type TestCase } from './turn-outcome';

export type TurnView = {
  id: number;
  index: number;
  action: string;
  observation: string | null;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  execStatus: string | null;
  policyMs: number | null;
  sandboxMs: number | null;
  cpuMs: number | null;
  maxRssMb: number | null;
  /** each check's own result, when the episode recorded it (older rows: null) */
  tests?: TurnTestResult[] | null;
};

function Output({ label, text, note }: { label: string; text: string | null; note?: string }) {
  return (
    <div className="min-w-0">
      <div className="mb-1 text-xs font-semibold text-slate-500">
        {label}
        {note && <span className="ml-2 font-normal text-slate-400">{note}</span>}
      </div>
      {text ? (
        <pre className="log-block" data-testid={label}>
          {text}
        </pre>
      ) : (
        <p className="text-xs italic text-slate-400" data-testid={`${label}-empty`}>
          empty
        </p>
      )}
    </div>
  );
}

const toneClass = { ok: 'bg-emerald-100 text-emerald-800', fail: 'bg-amber-100 text-amber-900', error: 'bg-red-100 text-red-800' } as const;

function TestsTable({ rows }: { rows: ReturnType<typeof testRows> }) {
  return (
    <div className="overflow-x-auto">
      <p className="mb-1 text-xs text-slate-500" data-testid="tests-derived">
        Derived from the turn&apos;s feedback line: this turn did not record each test&apos;s result.
      </p>
      <DataTable
        label="Test results"
        testId="test-results"
        wrapperClassName={null}
        rows={rows}
        rowKey={(r) => r.name}
        rowTestId="test-row"
        columns={[
          { key: 'test', header: 'test', className: 'font-mono text-xs', cell: (r) => r.name },
          { key: 'expected', header: 'expected', className: 'font-mono text-xs', cell: (r) => r.expected ?? '—' },
          {
            key: 'passed',
            header: 'passed',
            cell: (r) =>
              r.passed === null ? (
                <span className="text-slate-400">—</span>
              ) : r.passed ? (
                <span className="text-emerald-700">✓ yes</span>
              ) : (
                <span className="text-red-700">✗ no</span>
              ),
          },
          { key: 'result', header: 'value or error', className: 'break-all font-mono text-xs', cell: (r) => r.result },
        ]}
      />
    </div>
  );
}

function ExactTestsTable({ rows }: { rows: ReturnType<typeof exactTestRows> }) {
  const passed = rows.filter((r) => r.passed).length;
  return (
    <div className="overflow-x-auto">
      <p className="mb-1 text-xs text-slate-500" data-testid="tests-exact">
        Each test&apos;s result as recorded: {passed} of {rows.length} passed.
      </p>
      <DataTable
        label="Test results"
        testId="test-results"
        wrapperClassName={null}
        rows={rows}
        rowKey={(r) => r.index}
        rowTestId="test-row"
        columns={[
          { key: 'index', header: '#', align: 'right', className: 'tabular-nums', cell: (r) => r.index },
          { key: 'test', header: 'test', className: 'font-mono text-xs', cell: (r) => r.name },
          { key: 'expected', header: 'expected', className: 'font-mono text-xs', cell: (r) => r.expected ?? '—' },
          {
            key: 'passed',
            header: 'passed',
            cell: (r) => (r.passed ? <span className="text-emerald-700">✓ yes</span> : <span className="text-red-700">✗ no</span>),
          },
          {
            key: 'time',
            header: 'time',
            align: 'right',
            className: 'whitespace-nowrap tabular-nums',
            cell: (r) => (r.ms < 10 ? `${r.ms.toFixed(1)} ms` : formatMs(r.ms)),
          },
          { key: 'detail', header: 'detail', className: 'break-all font-mono text-xs', cell: (r) => r.detail || '—' },
        ]}
      />
    </div>
  );
}

/**
 * One turn: what the policy did, what the checks said (each test's own result when the turn
 * recorded it, else as far as its feedback line tells), and what the candidate printed. The
 * status comes from the checks, not from the sandbox's exit code: the harness exits 0 even
 * when the candidate's program never loaded.
 */
export function TurnCard({ turn, cases = [] }: { turn: TurnView; cases?: TestCase[] }) {
  const outcome = turnOutcome(turn);
  const out = candidateOutput(turn.stdout);
  const exact = turn.tests?.length ? exactTestRows(cases, turn.tests) : null;
  const rows = exact ? [] : testRows(cases, outcome);
  return (
    <article className="rounded border border-slate-200 bg-white" data-testid="turn" aria-label={`Turn ${turn.index}`}>
      <header className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs">
        <span className="text-sm font-semibold">Turn {turn.index}</span>
        <span className={`max-w-full truncate rounded px-1.5 py-0.5 font-medium ${toneClass[outcome.tone]}`} data-testid="turn-status" title={outcome.status}>
          {outcome.status}
        </span>
        <span className="text-slate-500">
          sandbox <span data-testid="exit-code">exit {turn.exitCode ?? '—'}</span>
        </span>
        <span className="text-slate-600">policy {formatMs(turn.policyMs)}</span>
        <span className="text-slate-600">sandbox {formatMs(turn.sandboxMs)}</span>
        <span className="text-slate-600">cpu {formatMs(turn.cpuMs)}</span>
        <span className="text-slate-600">max RSS {turn.maxRssMb == null ? '—' : `${formatNumber(turn.maxRssMb, 1)} MB`}</span>
      </header>
      <div className="space-y-3 p-3">
        <div>
          <div className="mb-1 text-xs font-semibold text-slate-500">action</div>
          <pre className="log-block bg-slate-950" data-testid="action">
            {turn.action}
          </pre>
        </div>
        {outcome.loadError && (
          <div role="alert" data-testid="load-error" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-xs text-red-800">
            <span className="font-semibold">The program did not load</span>, so no test ran: <span className="font-mono">{outcome.loadError}</span>
          </div>
        )}
        {exact && <ExactTestsTable rows={exact} />}
        {rows.length > 0 && <TestsTable rows={rows} />}
        <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
          <Output
            label="stdout"
            text={out.text}
            note={
              out.protocolLines
                ? `the candidate's output (${out.protocolLines} harness protocol line${out.protocolLines === 1 ? '' : 's'} hidden)`
                : "the candidate's output"
            }
          />
          <Output label="stderr" text={turn.stderr} />
        </div>
        {turn.observation && <Output label="observation" text={turn.observation} note="the feedback the policy saw next turn" />}
      </div>
    </article>
  );
}
