'use client';
import { Suspense, useEffect, useState, type FormEvent } from 'react';
import { useRouter, useSearchParams } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';
import { errorCode, errorMessage } from '@/components/api-error';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/layout-parts';
import { safeNextPath } from './safe-next';

function LoginForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Only same-origin paths, so ?next= cannot send a user elsewhere after sign-in.
  const next = safeNextPath(params.get('next'));
  // Already signed in (e.g. a bookmarked /login): go straight on, or to the forced password change.
  useEffect(() => {
    if (me.data) router.replace(me.data.mustChangePassword ? '/account' : next);
  }, [me.data, next, router]);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: async (user) => {
        await queryClient.invalidateQueries();
        router.replace(user.mustChangePassword ? '/account' : next);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ username: username.trim(), password });
  };
  const code = login.error ? errorCode(login.error) : undefined;
  const failure = login.error
    ? code === 'UNAUTHORIZED' || code === 'BAD_REQUEST'
      ? 'Wrong username or password, or the account is disabled. Check both and try again.'
      : code === 'TOO_MANY_REQUESTS'
        ? errorMessage(login.error)
        : `Sign-in failed: ${errorMessage(login.error)}. Check that the server is running and retry.`
    : null;
  return (
    <form onSubmit={submit} className="w-full max-w-sm rounded border border-slate-200 bg-white p-6 shadow-sm" aria-label="Sign in">
      <h1 className="text-lg font-semibold">Sign in to Crucible</h1>
      <p className="mb-4 text-slate-500">On first start, the admin password is printed by `npm start`.</p>
      <label className="mb-3 block">
        <span className="mb-1 block text-xs font-medium text-slate-600">Username</span>
        <input
          className={inputClass}
          name="username"
          autoComplete="username"
          autoFocus
          required
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
      </label>
      <label className="mb-4 block">
        <span className="mb-1 block text-xs font-medium text-slate-600">Password</span>
        <input
          className={inputClass}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      {failure && (
        <p role="alert" className="mb-3 rounded border border-red-200 bg-red-50 px-2 py-1.5 text-red-800">
          {failure}
        </p>
      )}
      <Button type="submit" variant="primary" className="w-full justify-center" disabled={login.isPending}>
        {login.isPending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  );
}

export default function LoginPage() {
  return (
    <div className="flex min-h-screen items-center justify-center bg-slate-100 px-4">
      <Suspense>
        <LoginForm />
      </Suspense>
    </div>
  );
}
