'use client';
import { useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { useCurrentUser } from '@/components/session';
import { errorCode, errorMessage } from '@/components/api-error';
import { Button } from '@/components/ui/button';
import { Facts, PageHeader, Section, inputClass } from '@/components/ui/layout-parts';

// Mirrors the server's rule (server/users/service.ts passwordSchema) so mistakes show before submit.
const MIN_LENGTH = 10;

function ChangePasswordForm({ forced }: { forced: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: async (r) => {
        setCurrent('');
        setNext('');
        setAgain('');
        setDone(`Password changed. ${r.sessionsEnded > 1 ? 'Your other sessions were signed out; this one continues.' : 'This session continues.'}`);
        await queryClient.invalidateQueries();
        if (forced) router.replace('/');
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    if (next.length < MIN_LENGTH) return setProblem(`the new password must be at least ${MIN_LENGTH} characters`);
    if (next !== again) return setProblem('the two new passwords differ; type the same one twice');
    if (next === current) return setProblem('the new password must differ from the current one');
    setProblem(null);
    change.mutate({ currentPassword: current, newPassword: next });
  };
  const failure =
    problem ??
    (change.error ? (errorCode(change.error) === 'TOO_MANY_REQUESTS' ? errorMessage(change.error) : `Not changed: ${errorMessage(change.error)}`) : null);
  const field = (id: string, label: string, value: string, set: (v: string) => void, autoComplete: string) => (
    <label className="block" htmlFor={id}>
      <span className="mb-1 block text-xs font-medium text-slate-600">{label}</span>
      <input id={id} className={inputClass} type="password" autoComplete={autoComplete} required value={value} onChange={(e) => set(e.target.value)} />
    </label>
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Change password" className="max-w-sm space-y-3">
      {field('current-password', forced ? 'One-time password from your admin' : 'Current password', current, setCurrent, 'current-password')}
      {field('new-password', 'New password', next, setNext, 'new-password')}
      {field('new-password-again', 'New password again', again, setAgain, 'new-password')}
      {failure && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 px-2 py-1.5 text-red-800">
          {failure}
        </p>
      )}
      {done && (
        <p role="status" className="rounded border border-emerald-200 bg-emerald-50 px-2 py-1.5 text-emerald-800">
          {done}
        </p>
      )}
      <Button type="submit" variant="primary" disabled={change.isPending}>
        {change.isPending ? 'Changing…' : 'Change password'}
      </Button>
    </form>
  );
}

export default function AccountPage() {
  const me = useCurrentUser();
  const forced = !!me.mustChangePassword;
  return (
    <>
      <title>Account · Crucible</title>
      <PageHeader title="Account" subtitle="Your sign-in details. Changing your password signs out your other sessions; API tokens keep working." />
      {forced && (
        <p role="alert" className="mb-4 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
          An admin reset your password. Choose a new one to continue: until then nothing else is available.
        </p>
      )}
      <Section title="Who you are">
        <Facts
          items={[
            ['Username', me.username],
            ['Display name', me.displayName ?? '—'],
            ['Role', me.role],
          ]}
        />
      </Section>
      <Section title="Change password">
        <ChangePasswordForm forced={forced} />
      </Section>
    </>
  );
}
