'use client';
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { errorHint, errorMessage } from '../api-error';
import { roleDescriptions, ROLES, type Role } from '@/core/roles';
import { Button } from '../ui/button';
import { inputClass } from '../ui/layout-parts';
import { fieldErrors } from './field-errors';

// Mirrors the server's rules so mistakes show while typing; the server still decides.
function check(username: string, password: string): Record<string, string> {
  const e: Record<string, string> = {};
  if (username.length < 2) e.username = 'username must be at least 2 characters';
  else if (!/^[a-z0-9][a-z0-9._-]*$/.test(username)) e.username = 'username may use lowercase letters, digits, ".", "_" and "-"';
  if (password.length < 10) e.password = 'password must be at least 10 characters';
  return e;
}

function randomPassword() {
  const bytes = crypto.getRandomValues(new Uint8Array(15));
  return btoa(String.fromCharCode(...bytes))
    .replace(/[+/=]/g, '')
    .slice(0, 18);
}

export function CreateUserForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('operator');
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: async (u) => {
        setCreated(`${u.username} (${u.role}) created. Give them the password through a safe channel.`);
        setUsername('');
        setDisplayName('');
        setPassword('');
        setTouched({});
        await queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() });
      },
    }),
  );
  const local = check(username, password);
  const server = fieldErrors(create.error);
  const err = (k: string) => (touched[k] ? local[k] : undefined) ?? server[k];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched({ username: true, password: true });
    setCreated(null);
    if (Object.keys(local).length) return;
    create.mutate({ username, password, role, displayName: displayName.trim() || undefined });
  };
  const field = (k: string, label: string, input: React.ReactNode) => (
    <div>
      <label htmlFor={`user-${k}`} className="mb-1 block text-xs font-medium text-slate-600">
        {label}
      </label>
      {input}
      {err(k) && (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {err(k)}
        </p>
      )}
    </div>
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Create user" className="space-y-3">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-4">
        {field(
          'username',
          'Username',
          <input
            id="user-username"
            className={inputClass}
            value={username}
            aria-invalid={err('username') ? true : undefined}
            autoComplete="off"
            onChange={(e) => {
              setUsername(e.target.value.toLowerCase());
              setTouched((t) => ({ ...t, username: true }));
            }}
          />,
        )}
        {field(
          'displayName',
          'Display name (optional)',
          <input id="user-displayName" className={inputClass} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />,
        )}
        {field(
          'password',
          'Initial password',
          <div className="flex gap-1">
            <input
              id="user-password"
              className={inputClass}
              type="text"
              autoComplete="new-password"
              value={password}
              aria-invalid={err('password') ? true : undefined}
              onChange={(e) => {
                setPassword(e.target.value);
                setTouched((t) => ({ ...t, password: true }));
              }}
            />
            <Button
              onClick={() => {
                setPassword(randomPassword());
                setTouched((t) => ({ ...t, password: true }));
              }}
              title="Generate a random password"
            >
              Generate
            </Button>
          </div>,
        )}
        {field(
          'role',
          'Role',
          <select id="user-role" className={inputClass} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r} — {roleDescriptions[r]}
              </option>
            ))}
          </select>,
        )}
      </div>
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create user'}
        </Button>
        {created && (
          <span role="status" className="text-emerald-700">
            {created}
          </span>
        )}
        {create.isError && Object.keys(server).length === 0 && (
          <span role="alert" className="text-red-700">
            {errorMessage(create.error)}. {errorHint(create.error)}
          </span>
        )}
      </div>
    </form>
  );
}
