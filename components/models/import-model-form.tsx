'use client';
import { useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/layout-parts';
import { errorMessage } from '@/components/api-error';

/**
 * Register a model from a directory on the server (operators and admins): read only under the
 * deployment's import roots (CRUCIBLE_IMPORT_ROOTS), which the form lists; validated and
 * published by hash exactly as `crucible models import` does.
 */
export function ImportModelForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const roots = useQuery(trpc.models.importRoots.queryOptions());
  const [name, setName] = useState('');
  const [dir, setDir] = useState('');
  const imported = useMutation(
    trpc.models.import.mutationOptions({
      onSuccess: async (row) => {
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.pathKey() });
        router.push(`/models/${encodeURIComponent(row.name)}`);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    imported.mutate({ name: name.trim(), dir: dir.trim() });
  };
  const allowed = roots.data?.roots ?? [];
  return (
    <details className="mb-4 rounded border border-slate-200 bg-white p-3" data-testid="import-model">
      <summary className="cursor-pointer text-sm font-medium text-slate-700">Import a model from the server</summary>
      <form onSubmit={submit} className="mt-3 grid gap-3 md:grid-cols-[16rem_1fr_auto] md:items-end">
        <div>
          <label htmlFor="import-name" className="mb-1 block text-xs font-medium text-slate-600">
            Name
          </label>
          <input id="import-name" className={inputClass} value={name} onChange={(e) => setName(e.target.value)} placeholder="qwen-0.5b" required />
        </div>
        <div>
          <label htmlFor="import-dir" className="mb-1 block text-xs font-medium text-slate-600">
            Directory on the server
          </label>
          <input
            id="import-dir"
            className={`${inputClass} font-mono`}
            value={dir}
            onChange={(e) => setDir(e.target.value)}
            placeholder={allowed[0] ? `${allowed[0]}/…` : '/srv/models/…'}
            aria-describedby="import-dir-help"
            required
          />
        </div>
        <Button type="submit" variant="primary" disabled={imported.isPending}>
          {imported.isPending ? 'Importing…' : 'Import'}
        </Button>
        <p id="import-dir-help" className="text-xs text-slate-500 md:col-span-3">
          {allowed.length ? (
            <>
              The server reads models only under{' '}
              {allowed.map((r, i) => (
                <span key={r}>
                  {i ? ', ' : ''}
                  <code>{r}</code>
                </span>
              ))}{' '}
              (CRUCIBLE_IMPORT_ROOTS).
            </>
          ) : (
            <>
              No import roots are configured (CRUCIBLE_IMPORT_ROOTS), so the server reads no directory: use `npx crucible models import DIR --name NAME` on the
              host.
            </>
          )}
        </p>
        {imported.isError && (
          <p role="alert" className="text-sm text-red-700 md:col-span-3" data-testid="import-error">
            {errorMessage(imported.error)}
          </p>
        )}
      </form>
    </details>
  );
}
