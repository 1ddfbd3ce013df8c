'use client';
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { usePathname, useRouter } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC, type RouterOutputs } from './trpc';
import { Nav } from './nav';
import { ErrorNotice, Loading } from './ui/states';

export type CurrentUser = NonNullable<RouterOutputs['auth']['me']>;

const UserContext = createContext<CurrentUser | null>(null);

/** The signed-in user; only usable inside pages the shell has gated. */
export function useCurrentUser(): CurrentUser {
  const u = useContext(UserContext);
  if (!u) throw new Error('useCurrentUser used outside a signed-in page');
  return u;
}

const publicPaths = ['/login'];

/**
 * Gates every page but /login on a session: unknown users go to /login?next=<here>.
 * The server checks every procedure anyway; this only keeps the UI honest.
 */
export function AppShell({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const router = useRouter();
  const isPublic = publicPaths.includes(pathname);
  const me = useQuery({ ...trpc.auth.me.queryOptions(), staleTime: 30_000 });
  const signedOut = me.isSuccess && me.data == null;

  // After an admin password reset the server allows nothing but the change: go there.
  const mustChange = !isPublic && !!me.data?.mustChangePassword && pathname !== '/account';

  useEffect(() => {
    if (!isPublic && signedOut) router.replace(`/login?next=${encodeURIComponent(pathname)}`);
    else if (mustChange) router.replace('/account');
  }, [isPublic, signedOut, mustChange, pathname, router]);

  if (isPublic) return <main className="min-h-screen">{children}</main>;

  let body: ReactNode;
  if (me.isPending || signedOut) body = <Loading label={signedOut ? 'Redirecting to sign-in…' : 'Checking your session…'} />;
  else if (mustChange) body = <Loading label="Redirecting to change your password…" />;
  else if (me.isError) body = <ErrorNotice title="Could not check your session" error={me.error} onRetry={() => me.refetch()} />;
  else body = <UserContext.Provider value={me.data}>{children}</UserContext.Provider>;

  return (
    <div className="min-h-screen">
      <Nav user={me.data ?? null} />
      <main className="mx-auto max-w-7xl px-4 py-4">{body}</main>
    </div>
  );
}
