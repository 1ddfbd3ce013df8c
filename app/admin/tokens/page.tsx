'use client';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { AdminOnly } from '@/components/admin/admin-only';
import { fieldErrors } from '@/components/admin/field-errors';
import { errorHint, errorMessage } from '@/components/api-error';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, inputClass } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime, timeAgo } from '@/components/display-format';

/** The secret is only in this component's state: shown once, gone on reload. */
function CreateToken() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [username, setUsername] = useState(me.username);
  const [secret, setSecret] = useState<{ token: string; name: string; username: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const users = useQuery(trpc.users.list.queryOptions());
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: async (t) => {
        setSecret({ token: t.token, name: t.name, username: t.username });
        setCopied(false);
        setName('');
        await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
      },
    }),
  );
  const errs = fieldErrors(create.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name: name.trim(), username: username === me.username ? undefined : username });
  };
  return (
    <div className="space-y-3">
      <form onSubmit={submit} noValidate aria-label="Create token" className="flex flex-wrap items-end gap-3">
        <div className="w-72">
          <label htmlFor="token-name" className="mb-1 block text-xs font-medium text-slate-600">
            Name (what will use it?)
          </label>
          <input
            id="token-name"
            className={inputClass}
            value={name}
            placeholder="e.g. ci-nightly"
            onChange={(e) => setName(e.target.value)}
            aria-invalid={errs.name ? true : undefined}
          />
          {errs.name && (
            <p role="alert" className="mt-1 text-xs text-red-700">
              {errs.name}
            </p>
          )}
        </div>
        <div className="w-56">
          <label htmlFor="token-user" className="mb-1 block text-xs font-medium text-slate-600">
            Acts as user
          </label>
          <select id="token-user" className={inputClass} value={username} onChange={(e) => setUsername(e.target.value)}>
            {(users.data ?? [{ username: me.username, role: me.role, disabledAt: null }])
              .filter((u) => !u.disabledAt)
              .map((u) => (
                <option key={u.username} value={u.username}>
                  {u.username} ({u.role})
                </option>
              ))}
          </select>
        </div>
        <Button type="submit" variant="primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </Button>
      </form>
      {create.isError && !errs.name && (
        <p role="alert" className="text-red-700">
          {errorMessage(create.error)}. {errorHint(create.error)}
        </p>
      )}
      {secret && (
        <div role="status" className="rounded border border-emerald-300 bg-emerald-50 p-3" data-testid="new-token">
          <p className="font-medium text-emerald-900">
            Token “{secret.name}” for {secret.username} created. Copy it now: it is stored only as a hash and will not be shown again.
          </p>
          <div className="mt-2 flex items-center gap-2">
            <code className="flex-1 select-all break-all rounded border border-emerald-200 bg-white px-2 py-1 font-mono text-xs" data-testid="token-secret">
              {secret.token}
            </code>
            <Button
              onClick={() => {
                void navigator.clipboard?.writeText(secret.token).then(() => setCopied(true));
              }}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
            <Button variant="ghost" onClick={() => setSecret(null)}>
              Done
            </Button>
          </div>
          <p className="mt-1 text-xs text-emerald-800">
            Use it as <code className="font-mono">Authorization: Bearer {secret.token.slice(0, 8)}…</code>
          </p>
        </div>
      )}
    </div>
  );
}

function TokenTable() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  // the token the admin is about to revoke (confirmed in a dialog: a revoked token cannot be restored)
  const [revoking, setRevoking] = useState<{ id: string; name: string; username: string; prefix: string } | null>(null);
  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSuccess: () => setRevoking(null),
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() }),
    }),
  );
  if (tokens.isPending) return <Loading label="Loading tokens…" />;
  if (tokens.isError) return <ErrorNotice title="Could not load tokens" error={tokens.error} onRetry={() => tokens.refetch()} />;
  if (tokens.data.length === 0) return <EmptyState title="No API tokens">Create one above for scripts and CI.</EmptyState>;
  return (
    <>
      <ConfirmDialog
        open={!!revoking}
        title={`Revoke token “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke token"
        tone="danger"
        busy={revoke.isPending}
        error={revoke.error && <ErrorNotice title="Revoke failed" error={revoke.error} />}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => {
          setRevoking(null);
          revoke.reset();
        }}
      >
        <p>
          Requests with <code className="font-mono">{revoking?.prefix}…</code> ({revoking?.username}) are refused from now on. A revoked token cannot be
          restored; scripts using it need a new one.
        </p>
      </ConfirmDialog>
      <DataTable
        label="API tokens"
        rows={tokens.data}
        rowKey={(t) => t.id}
        rowTestId="token-row"
        columns={[
          { key: 'name', header: 'Name', className: 'font-medium', cell: (t) => t.name },
          { key: 'prefix', header: 'Prefix', className: 'font-mono text-xs', cell: (t) => `${t.prefix}…` },
          { key: 'user', header: 'User', cell: (t) => t.username },
          { key: 'created', header: 'Created', className: 'text-slate-600', cell: (t) => formatDateTime(t.createdAt) },
          { key: 'lastUsed', header: 'Last used', className: 'text-slate-600', cell: (t) => (t.lastUsedAt ? timeAgo(t.lastUsedAt) : 'never') },
          {
            key: 'state',
            header: 'State',
            cell: (t) =>
              t.revokedAt ? <span className="text-slate-500">revoked {timeAgo(t.revokedAt)}</span> : <span className="text-emerald-700">active</span>,
          },
          {
            key: 'actions',
            header: null,
            align: 'right',
            cell: (t) =>
              !t.revokedAt && (
                <Button
                  variant="danger"
                  className="py-0.5"
                  disabled={revoke.isPending}
                  onClick={() => setRevoking({ id: t.id, name: t.name, username: t.username, prefix: t.prefix })}
                >
                  Revoke
                </Button>
              ),
          },
        ]}
      />
    </>
  );
}

export default function TokensPage() {
  return (
    <>
      <title>API tokens · Crucible</title>
      <PageHeader title="API tokens" subtitle="Bearer tokens for automation (CLI with --url, CI). A token has its user's role." />
      <AdminOnly>
        <Section title="Create token">
          <CreateToken />
        </Section>
        <Section title="Tokens">
          <TokenTable />
        </Section>
      </AdminOnly>
    </>
  );
}
