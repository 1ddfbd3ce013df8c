'use client';
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { can } from '@/core/roles';
import { Button } from '@/components/ui/button';
import { ErrorNotice, Loading } from '@/components/ui/states';
import { inputClass } from '@/components/ui/layout-parts';
import { timeAgo } from '@/components/display-format';
import { Markdownish } from './markdownish';

/** The reviewing guidelines, collapsible; admins can edit them in place. */
export function GuidelinesPanel({ role }: { role: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [open, setOpen] = useState(true);
  const [draft, setDraft] = useState<string | null>(null);
  const g = useQuery(trpc.reviews.guidelines.queryOptions());
  const save = useMutation(
    trpc.reviews.setGuidelines.mutationOptions({
      onSuccess: () => {
        setDraft(null);
        return qc.invalidateQueries({ queryKey: trpc.reviews.guidelines.queryKey() });
      },
    }),
  );
  return (
    <section className="mb-4 rounded border border-slate-200 bg-white" aria-label="Guidelines" data-testid="guidelines">
      <div className="flex items-center justify-between border-b border-slate-200 px-3 py-2">
        <button type="button" className="text-xs font-semibold uppercase tracking-wide text-slate-600" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'} Guidelines
        </button>
        {open && can(role, 'manageUsers') && draft === null && g.data && (
          <Button variant="ghost" onClick={() => setDraft(g.data.text)}>
            Edit
          </Button>
        )}
      </div>
      {open && (
        <div className="p-3">
          {g.isPending ? (
            <Loading label="Loading guidelines…" />
          ) : g.isError ? (
            <ErrorNotice error={g.error} onRetry={() => g.refetch()} />
          ) : draft !== null ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                save.mutate({ text: draft });
              }}
              className="space-y-2"
            >
              <label className="block text-xs text-slate-500" htmlFor="guidelines-text">
                Guidelines (Markdown: headings, lists, **bold**)
              </label>
              <textarea id="guidelines-text" className={`${inputClass} h-64 font-mono text-xs`} value={draft} onChange={(e) => setDraft(e.target.value)} />
              {save.isError && <ErrorNotice title="Could not save" error={save.error} />}
              <div className="flex gap-2">
                <Button type="submit" variant="primary" disabled={save.isPending}>
                  Save guidelines
                </Button>
                <Button onClick={() => setDraft(null)}>Cancel</Button>
              </div>
            </form>
          ) : (
            <>
              <Markdownish text={g.data.text} />
              {g.data.updatedAt && (
                <p className="mt-2 text-xs text-slate-400">
                  edited {timeAgo(g.data.updatedAt)} by {g.data.updatedBy}
                </p>
              )}
            </>
          )}
        </div>
      )}
    </section>
  );
}
