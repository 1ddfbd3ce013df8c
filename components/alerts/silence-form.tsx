'use client';
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/layout-parts';
import { errorMessage } from '@/components/api-error';
import type { AlertLabels } from '@/core/alerts';

/** Labels a silence starts from: what identifies the alert's kind and subject, not its severity or display name. */
const MATCH_BY = ['alertname', 'run', 'node', 'worker', 'environment', 'tier'];

/**
 * Silence alerts matching some labels for a while, with a reason (audited). Prefilled from an
 * alert: every alert of that rule about the same run or node, not just this one.
 */
export function SilenceForm({ from, onDone }: { from: AlertLabels; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [matchers, setMatchers] = useState(
    MATCH_BY.filter((k) => from[k] !== undefined)
      .map((k) => `${k}=${from[k]}`)
      .join('\n'),
  );
  const [hours, setHours] = useState('2');
  const [reason, setReason] = useState('');
  const silence = useMutation(
    trpc.alerts.silence.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.alerts.pathKey() });
        onDone();
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const m = Object.fromEntries(
      matchers
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')).trim(), l.slice(l.indexOf('=') + 1).trim()]),
    );
    silence.mutate({ matchers: m, hours: Number(hours), reason });
  };
  return (
    <form
      onSubmit={submit}
      className="mb-4 grid gap-3 rounded border border-slate-200 bg-white p-3 md:grid-cols-[1fr_8rem_1fr_auto] md:items-end"
      data-testid="silence-form"
    >
      <div>
        <label htmlFor="silence-matchers" className="mb-1 block text-xs font-medium text-slate-600">
          Matchers (one <code>label=value</code> per line; all must match)
        </label>
        <textarea id="silence-matchers" rows={3} className={`${inputClass} font-mono`} value={matchers} onChange={(e) => setMatchers(e.target.value)} />
      </div>
      <div>
        <label htmlFor="silence-hours" className="mb-1 block text-xs font-medium text-slate-600">
          For (hours)
        </label>
        <input id="silence-hours" type="number" min={0.1} step="any" className={inputClass} value={hours} onChange={(e) => setHours(e.target.value)} />
      </div>
      <div>
        <label htmlFor="silence-reason" className="mb-1 block text-xs font-medium text-slate-600">
          Reason (the next person on call reads it)
        </label>
        <input
          id="silence-reason"
          className={inputClass}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder="e.g. investigating the grader, ticket 123"
        />
      </div>
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={silence.isPending}>
          Silence
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
      {silence.isError && (
        <p className="text-sm text-red-700 md:col-span-4" role="alert">
          {errorMessage(silence.error)}
        </p>
      )}
    </form>
  );
}
