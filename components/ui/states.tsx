'use client';
import type { ReactNode } from 'react';
import { errorHint, errorMessage } from '../api-error';
import { Button } from './button';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div role="status" className="flex items-center gap-2 px-3 py-6 text-slate-500">
      <span className="h-3 w-3 motion-safe:animate-spin rounded-full border-2 border-slate-300 border-t-slate-600" />
      {label}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded border border-dashed border-slate-300 bg-white px-4 py-8 text-center">
      <p className="font-medium text-slate-700">{title}</p>
      {children && <div className="mt-1 text-slate-500">{children}</div>}
    </div>
  );
}

/**
 * A page the signed-in user's role does not open. Said as what it is: a role without access,
 * never as an error reaching the server.
 */
export function NoAccess({ page, role, needs }: { page: string; role: string; needs: string }) {
  return (
    <div role="alert" data-testid="no-access" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
      <p className="font-medium">
        Your role ({role}) has no access to {page}.
      </p>
      <p className="mt-0.5">It needs the {needs} role. Ask an admin to change your role if you need it.</p>
    </div>
  );
}

/** An API error with what the user can do about it, and a retry when one makes sense. */
export function ErrorNotice({ error, onRetry, title = 'Something went wrong' }: { error: unknown; onRetry?: () => void; title?: string }) {
  return (
    <div role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-red-800">
      <p className="font-medium">
        {title}: {errorMessage(error)}
      </p>
      <p className="mt-0.5 text-red-700">{errorHint(error)}</p>
      {onRetry && (
        <Button className="mt-2" onClick={onRetry}>
          Retry
        </Button>
      )}
    </div>
  );
}
