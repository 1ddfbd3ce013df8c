'use client';
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { ROLES, type Role } from '@/core/roles';
import { AdminOnly } from '@/components/admin/admin-only';
import { CreateUserForm } from '@/components/admin/create-user-form';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState, ErrorNotice, Loading } from '@/components/ui/states';
import { PageHeader, Section, controlClass } from '@/components/ui/layout-parts';
import { DataTable } from '@/components/ui/data-table';
import { formatDateTime } from '@/components/display-format';

function UsersTable() {
  const trpc = useTRPC();
  const me = useCurrentUser();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const [confirming, setConfirming] = useState<string | null>(null);
  const [confirmingReset, setConfirmingReset] = useState<string | null>(null);
  // a reset revokes the user's API tokens unless the admin unticks it
  const [revokeTokens, setRevokeTokens] = useState(true);
  const [oneTime, setOneTime] = useState<{ username: string; password: string; tokensRevoked: number } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() });
  // a role change or re-enable waits in a dialog until confirmed
  const [roleChange, setRoleChange] = useState<{ username: string; from: Role; to: Role } | null>(null);
  const [enabling, setEnabling] = useState<string | null>(null);
  const setRole = useMutation(trpc.users.setRole.mutationOptions({ onSuccess: () => setRoleChange(null), onSettled: refresh }));
  const enable = useMutation(trpc.users.enable.mutationOptions({ onSuccess: () => setEnabling(null), onSettled: refresh }));
  const disable = useMutation(
    trpc.users.disable.mutationOptions({
      onSettled: () => {
        setConfirming(null);
        return refresh();
      },
    }),
  );
  const reset = useMutation(
    trpc.users.resetPassword.mutationOptions({
      onSuccess: (r) => setOneTime({ username: r.username, password: r.password, tokensRevoked: r.tokensRevoked }),
      onSettled: () => {
        setConfirmingReset(null);
        return refresh();
      },
    }),
  );
  if (users.isPending) return <Loading label="Loading users…" />;
  if (users.isError) return <ErrorNotice title="Could not load users" error={users.error} onRetry={() => users.refetch()} />;
  if (users.data.length === 0) return <EmptyState title="No users">Create one above.</EmptyState>;
  const error = disable.error ?? reset.error;
  return (
    <>
      {error && <ErrorNotice title="Change refused" error={error} />}
      {oneTime && (
        <div role="status" className="mb-3 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
          One-time password for <strong>{oneTime.username}</strong> (shown once; give it to them through a safe channel):{' '}
          <code data-testid="one-time-password" className="select-all rounded bg-white px-1.5 py-0.5 font-mono">
            {oneTime.password}
          </code>
          . They must choose a new one when they sign in.
          {oneTime.tokensRevoked > 0 && ` ${oneTime.tokensRevoked} API token${oneTime.tokensRevoked === 1 ? ' was' : 's were'} revoked.`}{' '}
          <Button variant="ghost" className="py-0.5" onClick={() => setOneTime(null)}>
            Done
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={!!roleChange}
        title={`Change ${roleChange?.username ?? ''}'s role?`}
        confirmLabel={`Make ${roleChange?.to ?? ''}`}
        tone={roleChange?.to === 'admin' ? 'danger' : 'primary'}
        busy={setRole.isPending}
        error={setRole.error && <ErrorNotice title="Change refused" error={setRole.error} />}
        onConfirm={() => roleChange && setRole.mutate({ username: roleChange.username, role: roleChange.to })}
        onCancel={() => setRoleChange(null)}
      >
        <p>
          <strong>{roleChange?.username}</strong> goes from <strong>{roleChange?.from}</strong> to <strong>{roleChange?.to}</strong>, effective on their next
          request (their API tokens too).
          {roleChange?.to === 'admin' && ' Admins manage users, tokens and the audit log.'}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={!!enabling}
        title={`Re-enable ${enabling ?? ''}?`}
        confirmLabel="Re-enable"
        busy={enable.isPending}
        error={enable.error && <ErrorNotice title="Re-enable refused" error={enable.error} />}
        onConfirm={() => enabling && enable.mutate({ username: enabling })}
        onCancel={() => setEnabling(null)}
      >
        <p>
          <strong>{enabling}</strong> can sign in again with their password. Their API tokens stay revoked; create new ones if they need them.
        </p>
      </ConfirmDialog>
      <DataTable
        label="Users"
        rows={users.data}
        rowKey={(u) => u.id}
        rowTestId="user-row"
        columns={[
          { key: 'username', header: 'Username', className: 'font-medium', cell: (u) => u.username },
          { key: 'displayName', header: 'Display name', cell: (u) => u.displayName ?? '—' },
          {
            key: 'role',
            header: 'Role',
            cell: (u) => {
              const self = u.username === me.username;
              return (
                <select
                  aria-label={`Role of ${u.username}`}
                  className={`${controlClass} w-32 py-0.5`}
                  value={u.role}
                  disabled={self || !!u.disabledAt || setRole.isPending}
                  title={self ? 'You cannot change your own role' : undefined}
                  onChange={(e) => {
                    setRole.reset();
                    setRoleChange({ username: u.username, from: u.role as Role, to: e.target.value as Role });
                  }}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              );
            },
          },
          { key: 'created', header: 'Created', className: 'text-slate-600', cell: (u) => formatDateTime(u.createdAt) },
          {
            key: 'state',
            header: 'State',
            cell: (u) =>
              u.disabledAt ? (
                <span className="text-red-700">disabled</span>
              ) : u.mustChangePassword ? (
                <span className="text-amber-700">must change password</span>
              ) : (
                <span className="text-emerald-700">active</span>
              ),
          },
          {
            key: 'actions',
            header: null,
            className: 'whitespace-nowrap text-right',
            cell: (u) => {
              const self = u.username === me.username;
              return (
                <>
                  {u.disabledAt && (
                    <Button
                      className="py-0.5"
                      onClick={() => {
                        enable.reset();
                        setEnabling(u.username);
                      }}
                    >
                      Re-enable
                    </Button>
                  )}
                  {!u.disabledAt &&
                    !self &&
                    (confirmingReset === u.username ? (
                      <span className="mr-2 inline-flex items-center gap-1">
                        <span className="text-xs text-amber-800">Signs them out; they pick a new password.</span>
                        <label className="inline-flex items-center gap-1 text-xs text-slate-700">
                          <input type="checkbox" checked={revokeTokens} onChange={(e) => setRevokeTokens(e.target.checked)} />
                          Revoke their API tokens
                        </label>
                        <Button
                          variant="primary"
                          className="py-0.5"
                          disabled={reset.isPending}
                          onClick={() => reset.mutate({ username: u.username, revokeTokens })}
                        >
                          Confirm reset
                        </Button>
                        <Button variant="ghost" className="py-0.5" onClick={() => setConfirmingReset(null)}>
                          Keep
                        </Button>
                      </span>
                    ) : (
                      <Button
                        className="mr-2 py-0.5"
                        onClick={() => {
                          setOneTime(null);
                          setRevokeTokens(true);
                          setConfirmingReset(u.username);
                        }}
                      >
                        Reset password
                      </Button>
                    ))}
                  {!u.disabledAt &&
                    !self &&
                    (confirming === u.username ? (
                      <span className="inline-flex items-center gap-1">
                        <span className="text-xs text-red-700">Signs them out everywhere.</span>
                        <Button variant="danger" className="py-0.5" disabled={disable.isPending} onClick={() => disable.mutate({ username: u.username })}>
                          Confirm disable
                        </Button>
                        <Button variant="ghost" className="py-0.5" onClick={() => setConfirming(null)}>
                          Keep
                        </Button>
                      </span>
                    ) : (
                      <Button variant="danger" className="py-0.5" onClick={() => setConfirming(u.username)}>
                        Disable
                      </Button>
                    ))}
                </>
              );
            },
          },
        ]}
      />
    </>
  );
}

export default function UsersPage() {
  return (
    <>
      <title>Users · Crucible</title>
      <PageHeader
        title="Users"
        subtitle="Who can sign in, and what their role allows. Disabling signs a user out everywhere; a password reset signs them out and makes them choose a new password."
      />
      <AdminOnly>
        <Section title="Create user">
          <CreateUserForm />
        </Section>
        <Section title="All users">
          <UsersTable />
        </Section>
      </AdminOnly>
    </>
  );
}
