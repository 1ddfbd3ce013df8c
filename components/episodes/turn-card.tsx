import { formatMs, formatNumber } from '../display-format';

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
};

function Output({ label, text }: { label: string; text: string | null }) {
  return (
    <div className="min-w-0">
      <div className="mb-1 text-xs font-semibold text-slate-500">{label}</div>
      {text ? (
        <pre className="log-block" data-testid={label}>
          {text}
        </pre>
      ) : (
        <p className="text-xs italic text-slate-400">empty</p>
      )}
    </div>
  );
}

/** One turn: what the policy did, and exactly what the sandbox answered. */
export function TurnCard({ turn }: { turn: TurnView }) {
  const ok = turn.exitCode === 0;
  return (
    <article className="rounded border border-slate-200 bg-white" data-testid="turn" aria-label={`Turn ${turn.index}`}>
      <header className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs">
        <span className="text-sm font-semibold">Turn {turn.index}</span>
        <span className={ok ? 'text-emerald-700' : 'text-red-700'} data-testid="exit-code">
          exit {turn.exitCode ?? '—'}
        </span>
        {turn.execStatus && <span className="rounded bg-slate-200 px-1.5 py-0.5">{turn.execStatus}</span>}
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
        <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
          <Output label="stdout" text={turn.stdout} />
          <Output label="stderr" text={turn.stderr} />
        </div>
        {turn.observation && <Output label="observation" text={turn.observation} />}
      </div>
    </article>
  );
}
