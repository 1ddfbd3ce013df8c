'use client';
import type { RefObject } from 'react';
import type { RouterOutputs } from '@/components/trpc';
import { Section, inputClass, tableClass, tdClass } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime, formatNumber } from '@/components/display-format';
import { candidateOutput, turnOutcome } from '@/components/episodes/turn-outcome';
import { describeTextCheck, textChecks } from '@/core/tasks';
import { CodeBlock } from './code-block';
import { DiffView } from '@/components/episodes/diff-view';
import { languageOf, type CodeLanguage } from './highlight';
import { rewardBreakdown, type Weights } from './reward-breakdown';
import { VERDICT_KEYS, type VerdictKey } from './shortcuts';

export type ReviewItem = RouterOutputs['reviews']['item'];
export type VerdictForm = { verdict: VerdictKey | null; reward: string; note: string };

export const verdictLabels: Record<VerdictKey, string> = {
  correct: 'Correct',
  false_negative: 'False negative',
  false_positive: 'False positive',
  unclear: 'Unclear',
};

const HIDDEN = 'hidden until you give a verdict';
const toneText = { ok: 'text-emerald-700', fail: 'text-amber-700', error: 'text-red-700' } as const;

function Hidden({ value, revealed, testId }: { value: string | null; revealed: boolean; testId: string }) {
  return revealed ? (
    <span data-testid={testId}>{value ?? '—'}</span>
  ) : (
    <span data-testid={testId} className="italic text-slate-400">
      {HIDDEN}
    </span>
  );
}

function TextOut({ label, text }: { label: string; text: string | null }) {
  if (!text) return null;
  return (
    <div className="min-w-0">
      <div className="mb-1 text-xs font-semibold text-slate-500">{label}</div>
      <pre className="log-block" data-testid={label}>
        {text}
      </pre>
    </div>
  );
}

/** The item's facts: sample reason, environment against its baseline, and what blind review withholds. */
function ItemFacts({ item }: { item: ReviewItem }) {
  const env = item.baselineEnv;
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
      <div>
        <dt className="text-xs text-slate-500">Sample reason</dt>
        <dd data-testid="sample-reason" className="font-mono text-xs">
          {item.sampleReason}
        </dd>
      </div>
      <div>
        <dt className="text-xs text-slate-500">Task</dt>
        <dd>
          {item.task?.externalId ?? '—'} <span className="text-slate-400">({item.task?.kind === 'text' ? 'text' : (item.task?.language ?? '?')})</span>
        </dd>
      </div>
      <div>
        <dt className="text-xs text-slate-500">Slot</dt>
        <dd>{item.slot === 0 ? 'first review' : `double review #${item.slot + 1}`}</dd>
      </div>
      <div className="sm:col-span-2">
        <dt className="text-xs text-slate-500">Environment hash / baseline</dt>
        <dd className="font-mono text-xs break-all">
          <span data-testid="env-hash">{item.envHash ?? '—'}</span>
          {env ? (
            <>
              <span className="mx-1 text-slate-400">vs {env.name}</span>
              <span className="break-all">{env.hash}</span>{' '}
              <span
                data-testid="env-match"
                className={`rounded px-1.5 py-0.5 font-sans ${env.matches ? 'bg-emerald-100 text-emerald-800' : 'bg-red-100 text-red-800'}`}
              >
                {env.matches ? 'matches baseline' : 'differs from baseline'}
              </span>
              {env.quarantined && <span className="ml-1 rounded bg-red-600 px-1.5 py-0.5 font-sans text-white">quarantined</span>}
            </>
          ) : (
            <span className="ml-1 font-sans text-slate-400">(no baseline registered)</span>
          )}
        </dd>
      </div>
      <div>
        <dt className="text-xs text-slate-500">Run</dt>
        <dd>
          <Hidden value={item.runName} revealed={item.revealed} testId="run-name" />
        </dd>
      </div>
      <div>
        <dt className="text-xs text-slate-500">Policy version</dt>
        <dd>
          <Hidden value={item.policyVersion == null ? null : String(item.policyVersion)} revealed={item.revealed} testId="policy-version" />
        </dd>
      </div>
      <div>
        <dt className="text-xs text-slate-500">Automatic reward</dt>
        <dd className="tabular-nums">
          <Hidden value={item.reward == null ? null : formatNumber(item.reward)} revealed={item.revealed} testId="auto-reward" />
        </dd>
      </div>
    </dl>
  );
}

function Components({ components, weights, repoReward }: { components: unknown; weights: Weights | null; repoReward: 'fraction' | 'resolved' | null }) {
  if (!components || typeof components !== 'object') return <p className="text-slate-400">no reward components</p>;
  const all = components as Record<string, unknown>;
  const breakdown = rewardBreakdown(all, weights, repoReward);
  const weighted = new Map(breakdown?.rows.map((r) => [r.name, r]) ?? []);
  return (
    <table className={tableClass} aria-label="Reward components" data-testid="reward-components">
      {breakdown && (
        <thead>
          <tr>
            <th className={`${tdClass} text-left text-xs font-medium text-slate-500`}>component</th>
            <th className={`${tdClass} text-left text-xs font-medium text-slate-500`}>value</th>
            <th className={`${tdClass} text-left text-xs font-medium text-slate-500`}>weight</th>
            <th className={`${tdClass} text-left text-xs font-medium text-slate-500`}>share of the reward</th>
          </tr>
        </thead>
      )}
      <tbody>
        {Object.entries(all).map(([k, v]) => {
          const w = weighted.get(k);
          return (
            <tr key={k}>
              <td className={`${tdClass} text-slate-500`}>{k}</td>
              <td className={`${tdClass} tabular-nums`}>{typeof v === 'number' ? formatNumber(v) : JSON.stringify(v)}</td>
              {breakdown && <td className={`${tdClass} tabular-nums`}>{w ? formatNumber(w.weight) : ''}</td>}
              {breakdown && <td className={`${tdClass} tabular-nums`}>{w ? formatNumber(w.contribution) : ''}</td>}
            </tr>
          );
        })}
        {breakdown && (
          <tr data-testid="reward-sum">
            <td className={`${tdClass} font-medium text-slate-700`} colSpan={3}>
              sum {repoReward === 'resolved' ? '(the run rewards resolved only)' : '(weight × value ÷ total weight)'}
            </td>
            <td className={`${tdClass} font-medium tabular-nums`}>{formatNumber(breakdown.sum)}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** tasks.tests: input/expected cases, or a HumanEval check() function. */
function TestsView({ tests, lang }: { tests: unknown; lang: CodeLanguage }) {
  const t = tests as { kind?: string; check?: string; cases?: { input: unknown[]; expected: unknown }[] } | null;
  if (t?.kind === 'humaneval' && typeof t.check === 'string') return <CodeBlock code={t.check} language={lang} testId="task-tests" />;
  const text = textChecks.safeParse((tests as { checks?: unknown } | null)?.checks);
  if (t?.kind === 'text' && text.success)
    return (
      <ul className="list-disc pl-5 text-sm" aria-label="Checks of the text" data-testid="task-tests">
        {text.data.map((c, i) => (
          <li key={i}>{describeTextCheck(c)}</li>
        ))}
      </ul>
    );
  const cases = t?.kind === 'io' ? t.cases : Array.isArray(tests) ? (tests as { input: unknown[]; expected: unknown }[]) : null;
  if (!cases)
    return (
      <pre className="log-block" data-testid="task-tests">
        {JSON.stringify(tests, null, 2)}
      </pre>
    );
  return (
    <DataTable
      label="Tests"
      testId="task-tests"
      rows={cases}
      rowKey={(_, i) => i}
      columns={[
        { key: 'index', header: '#', cell: (_, i) => i },
        { key: 'input', header: 'input', className: 'font-mono text-xs', cell: (c) => JSON.stringify(c.input) },
        { key: 'expected', header: 'expected', className: 'font-mono text-xs', cell: (c) => JSON.stringify(c.expected) },
      ]}
    />
  );
}

/** Everything a reviewer needs to judge one reward, and the verdict form. */
export function ItemView({
  item,
  form,
  setForm,
  onSubmit,
  submitting,
  noteRef,
  rewardRef,
  position,
  autoAdvance,
  setAutoAdvance,
}: {
  item: ReviewItem;
  form: VerdictForm;
  setForm: (f: VerdictForm) => void;
  onSubmit: () => void;
  submitting: boolean;
  noteRef: RefObject<HTMLTextAreaElement | null>;
  rewardRef: RefObject<HTMLInputElement | null>;
  /** "item N of M" (review-session.ts itemPosition), null when not known */
  position: { n: number; m: number } | null;
  autoAdvance: boolean;
  setAutoAdvance: (on: boolean) => void;
}) {
  const lang = languageOf(item.task?.language, item.task?.kind);
  const formId = `verdict-${item.id}`;
  const tests = item.task?.tests;
  return (
    <div data-testid="review-item" data-review-id={item.id}>
      <div className="mb-2 flex items-baseline justify-between gap-2">
        <h2 className="text-sm font-semibold text-slate-800" data-testid="item-position">
          {position ? `Item ${position.n} of ${position.m}` : 'Item'}
        </h2>
        {item.blind && !item.revealed && <span className="text-xs text-slate-500">blind review: reward, run and policy hidden until your verdict</span>}
      </div>
      <Section title="Item">
        <ItemFacts item={item} />
      </Section>
      <Section title="Task">
        {item.task ? (
          <div className="space-y-2">
            <pre className="whitespace-pre-wrap text-sm" data-testid="task-prompt">
              {item.task.prompt}
            </pre>
            <div className="text-xs text-slate-500">
              entry point <span className="font-mono">{item.task.entryPoint ?? '—'}</span> · tests
            </div>
            <TestsView tests={tests} lang={lang} />
          </div>
        ) : (
          <p className="text-slate-400">the episode has no task</p>
        )}
      </Section>
      <Section title={`Turns (${item.turns.length})`}>
        <div className="space-y-3">
          {item.turns.map((t) => (
            <article key={t.index} data-testid="turn" aria-label={`Turn ${t.index}`} className="rounded border border-slate-200">
              <header className="flex flex-wrap gap-x-3 gap-y-1 border-b border-slate-200 bg-slate-50 px-3 py-1 text-xs">
                <span className="font-semibold">Turn {t.index}</span>
                {t.observation !== null ? (
                  // what the checks said: a program that did not load reads so, not "exit 0 ok"
                  <span className={toneText[turnOutcome(t).tone]} data-testid="turn-status">
                    {turnOutcome(t).status}
                  </span>
                ) : (
                  <span className="italic text-slate-400" data-testid="turn-status">
                    {item.revealed ? 'no check result recorded' : `check result ${HIDDEN}`}
                  </span>
                )}
                <span className="text-slate-500">sandbox exit {t.exitCode ?? '—'}</span>
              </header>
              <div className="space-y-2 p-2">
                <CodeBlock code={t.action} language={lang} testId="action" />
                <div className="grid grid-cols-1 gap-2 lg:grid-cols-2">
                  <TextOut label="stdout" text={candidateOutput(t.stdout).text || null} />
                  <TextOut label="stderr" text={t.stderr} />
                </div>
                <TextOut label="observation" text={t.observation} />
              </div>
            </article>
          ))}
        </div>
      </Section>
      {item.patch !== null && (
        <Section title="Patch (the agent's changes, as grading applied them)">
          {item.patch ? <DiffView patch={item.patch} testId="review-patch" /> : <p className="text-slate-400">the agent changed nothing</p>}
        </Section>
      )}
      {item.revealed && (
        // Blind review: the components are the reward in parts, so a blind item has no such section at all until its verdict.
        <Section title="Reward components">
          <Components components={item.components} weights={item.rewardWeights} repoReward={item.repoReward} />
        </Section>
      )}
      {item.history.length > 0 && (
        <Section title="Verdict history">
          <DataTable
            label="Verdict history"
            rows={item.history}
            rowKey={(h) => h.id}
            rowTestId="history-row"
            columns={[
              { key: 'when', header: 'when', cell: (h) => formatDateTime(h.at) },
              { key: 'who', header: 'who', cell: (h) => h.actor },
              { key: 'verdict', header: 'verdict', cell: (h) => h.verdict },
              { key: 'corrected', header: 'corrected', cell: (h) => formatNumber(h.correctedReward) },
              { key: 'note', header: 'note', cell: (h) => h.note },
            ]}
          />
        </Section>
      )}
      {/* The reward and note belong to the pinned verdict form below (the `form` attribute), but stay in the flow: the pinned bar is one row. */}
      <Section title="Details for the verdict">
        <div className="grid grid-cols-1 gap-3 md:grid-cols-[12rem_1fr]">
          <label className="block text-xs text-slate-500">
            Corrected reward (0–1, <kbd>r</kbd>)
            <input
              ref={rewardRef}
              form={formId}
              className={inputClass}
              inputMode="decimal"
              value={form.reward}
              disabled={form.verdict === 'correct'}
              placeholder={form.verdict === 'correct' ? 'keeps the automatic reward' : 'optional'}
              onChange={(e) => setForm({ ...form, reward: e.target.value })}
              aria-label="Corrected reward"
            />
          </label>
          <label className="block text-xs text-slate-500">
            Note (<kbd>n</kbd>, Esc to leave)
            <textarea
              ref={noteRef}
              form={formId}
              className={`${inputClass} h-16`}
              value={form.note}
              onChange={(e) => setForm({ ...form, note: e.target.value })}
              aria-label="Note"
            />
          </label>
        </div>
      </Section>
      {/* Pinned to the bottom of the window while the item scrolls under it: the verdict is always one key or click away. */}
      <form
        id={formId}
        aria-label="Verdict"
        data-testid="verdict-bar"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
        className="sticky bottom-0 z-10 flex flex-wrap items-center gap-x-3 gap-y-1.5 rounded-t border border-slate-300 bg-white/95 px-3 py-2 shadow-[0_-4px_12px_rgba(15,23,42,0.08)] backdrop-blur"
      >
        <div role="radiogroup" aria-label="Verdict" className="flex flex-wrap gap-1.5">
          {VERDICT_KEYS.map((v, i) => (
            <button
              key={v}
              type="button"
              role="radio"
              aria-checked={form.verdict === v}
              data-testid={`verdict-${v}`}
              onClick={() => setForm({ ...form, verdict: v })}
              className={`rounded border px-2.5 py-1 text-sm ${form.verdict === v ? 'border-accent bg-accent text-white' : 'border-slate-300 bg-white hover:bg-slate-100'}`}
            >
              <kbd className="mr-1 text-xs opacity-70">{i + 1}</kbd>
              {verdictLabels[v]}
            </button>
          ))}
        </div>
        <label className="flex items-center gap-1.5 text-xs text-slate-600">
          <input
            type="checkbox"
            checked={autoAdvance}
            onChange={(e) => {
              setAutoAdvance(e.target.checked);
              // back to the keyboard flow: a focused checkbox would take the next 1–4 and Enter
              e.target.blur();
            }}
            data-testid="auto-advance"
          />
          Next item after a verdict
        </label>
        <span className="ml-auto flex items-center gap-3">
          {item.verdict && (
            <span data-testid="saved-verdict" className="text-sm text-emerald-700">
              saved: {item.verdict}
            </span>
          )}
          <button
            type="submit"
            disabled={submitting || !form.verdict}
            className="rounded bg-accent px-3 py-1 text-sm font-medium text-white disabled:opacity-50"
          >
            {item.verdict ? 'Update verdict' : 'Submit verdict'} <kbd className="text-xs opacity-70">Enter</kbd>
          </button>
        </span>
      </form>
    </div>
  );
}
