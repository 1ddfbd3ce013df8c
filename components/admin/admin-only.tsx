'use client';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { useCurrentUser } from '../session';
import { can } from '@/core/roles';

/** Admin pages render a clear refusal for other roles (the server refuses the calls anyway). */
export function AdminOnly({ children }: { children: ReactNode }) {
  const user = useCurrentUser();
  if (can(user.role, 'manageUsers')) return <>{children}</>;
  return (
    <div role="alert" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900">
      This page is for admins; you are signed in as {user.username} ({user.role}). Go back to{' '}
      <Link className="underline" href="/runs">
        runs
      </Link>
      .
    </div>
  );
}
