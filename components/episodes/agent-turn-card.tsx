import type { StoredToolCall } from '@/core/repo-tasks';
import { formatMs } from '../display-format';
import { CappedOutput } from './capped-output';
import { CollapsibleDiff, DiffView } from './diff-view';
import { assistantProse, describeToolCall, type ToolCallBlock } from './tool-call-display';

export type AgentTurnView = {
  id: number;
  index: number;
  /** the assistant message, as generated */
  action: string;
  /** the tool messages the agent received (shown per call when the calls are recorded) */
  observation: string | null;
  policyMs: number | null;
  toolCalls: StoredToolCall[] | null;
  workspaceDiff: string | null;
};

const blockClass: Record<ToolCallBlock['kind'], string> = { command: 'log-block bg-slate-950', code: 'log-block bg-slate-800', diff: '' };

function ToolCallCard({ call, n }: { call: StoredToolCall; n: number }) {
  const view = describeToolCall(call.name, call.arguments);
  return (
    <div className={`rounded border ${call.error ? 'border-red-300' : 'border-slate-200'}`} data-testid="tool-call" data-tool={call.name}>
      <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-100 bg-slate-50 px-3 py-1.5 text-xs">
        <span className="text-slate-400">call {n}</span>
        <span className="rounded bg-indigo-100 px-1.5 py-0.5 font-mono font-semibold text-indigo-800" data-testid="tool-name">
          {call.name || '(unreadable call)'}
        </span>
        {view.summary && (
          <code className="min-w-0 flex-1 truncate font-mono text-slate-800" data-testid="tool-summary" title={view.summary}>
            {view.summary}
          </code>
        )}
        <span className="ml-auto text-slate-500">{formatMs(call.durationMs)}</span>
        {call.submitted && <span className="rounded bg-emerald-100 px-1.5 py-0.5 font-medium text-emerald-800">submitted</span>}
        {call.error && (
          <span className="rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800" data-testid="tool-error-badge" title={call.error}>
            error
          </span>
        )}
      </div>
      <div className="space-y-2 p-3">
        {view.blocks.map((b) => (
          <div key={b.label}>
            <div className="mb-1 text-xs font-semibold text-slate-500">{b.label}</div>
            {b.kind === 'diff' ? (
              <DiffView patch={b.text} testId={`tool-${b.label}`} />
            ) : (
              <pre className={blockClass[b.kind]} data-testid={`tool-${b.label.replace(/ /g, '-')}`}>
                {b.text}
              </pre>
            )}
          </div>
        ))}
        {call.error && !call.output.includes(call.error) && (
          <p role="alert" className="text-xs text-red-800" data-testid="tool-error">
            {call.error}
          </p>
        )}
        <div>
          <div className="mb-1 text-xs font-semibold text-slate-500">output</div>
          <CappedOutput text={call.output} testId="tool-output" tone={call.error ? 'error' : 'plain'} />
        </div>
      </div>
    </div>
  );
}

function RawMessage({ text, label }: { text: string; label: string }) {
  return (
    <details className="mt-1" data-testid="raw-message">
      <summary className="cursor-pointer select-none text-xs text-slate-500 hover:text-slate-700">{label}</summary>
      <pre className="log-block mt-1" data-testid="action">
        {text}
      </pre>
    </details>
  );
}

/**
 * One agent turn as the agent saw it: its message (the prose; the raw message on demand), each
 * tool call with its arguments and the output the agent got back, and the workspace diff
 * after the turn (against the pristine workspace), marked when this turn changed it.
 */
export function AgentTurnCard({ turn, previousDiff }: { turn: AgentTurnView; previousDiff: string | null }) {
  const prose = assistantProse(turn.action);
  const calls = turn.toolCalls ?? [];
  const changed = turn.workspaceDiff !== null && turn.workspaceDiff !== (previousDiff ?? '');
  return (
    <article className="rounded border border-slate-200 bg-white" data-testid="agent-turn" aria-label={`Turn ${turn.index}`}>
      <header className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs">
        <span className="text-sm font-semibold">Turn {turn.index}</span>
        <span className="text-slate-600" data-testid="turn-tools">
          {calls.length ? calls.map((c) => c.name || '?').join(', ') : 'no tool call'}
        </span>
        {changed && <span className="rounded bg-amber-100 px-1.5 py-0.5 font-medium text-amber-900">changed the workspace</span>}
        {turn.policyMs !== null && <span className="ml-auto text-slate-600">policy {formatMs(turn.policyMs)}</span>}
      </header>
      <div className="space-y-3 p-3">
        {prose ? (
          <div>
            <div className="mb-1 text-xs font-semibold text-slate-500">assistant message</div>
            <p className="whitespace-pre-wrap rounded bg-slate-50 px-3 py-2 text-sm text-slate-800" data-testid="assistant-prose">
              {prose}
            </p>
            <RawMessage text={turn.action} label="the raw message, as generated" />
          </div>
        ) : (
          <RawMessage
            text={turn.action}
            label={calls.length ? 'assistant message: tool calls only (show it raw, as generated)' : 'assistant message (as generated)'}
          />
        )}
        {calls.map((c, i) => (
          <ToolCallCard key={i} call={c} n={i + 1} />
        ))}
        {!calls.length && turn.observation && (
          <div>
            <div className="mb-1 text-xs font-semibold text-slate-500">what the agent was told</div>
            <CappedOutput text={turn.observation} testId="observation" />
          </div>
        )}
        {turn.workspaceDiff !== null && (
          <CollapsibleDiff
            title="Workspace diff after this turn"
            patch={turn.workspaceDiff}
            note={changed ? 'changed by this turn' : 'unchanged by this turn'}
            testId="workspace-diff"
          />
        )}
      </div>
    </article>
  );
}
