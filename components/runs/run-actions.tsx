'use client';
import Link from 'next/link';
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { useCurrentUser } from '../session';
import { can as roleCan } from '@/core/roles';
import { Button, buttonClass } from '../ui/button';
import { ErrorNotice } from '../ui/states';
import { ConfirmDialog } from '../ui/confirm-dialog';
import type { RunAction } from '@/core/run-status';

/** Lifecycle buttons: only the transitions the run's status allows, only for roles that may. */
export function RunActions({ run }: { run: { id: string; name: string; status: string; allowedActions: RunAction[] } }) {
  const trpc = useTRPC();
  const user = useCurrentUser();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [confirmClone, setConfirmClone] = useState(false);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id: run.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.runs.events.infiniteQueryKey({ id: run.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() }),
    ]);
  const pause = useMutation(trpc.runs.pause.mutationOptions({ onSuccess: refresh }));
  const resume = useMutation(trpc.runs.resume.mutationOptions({ onSuccess: refresh }));
  const cancel = useMutation(trpc.runs.cancel.mutationOptions({ onSuccess: refresh, onSettled: () => setConfirmCancel(false) }));
  const clone = useMutation(
    trpc.runs.clone.mutationOptions({
      onSuccess: async (copy) => {
        setConfirmClone(false);
        await queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() });
        router.push(`/runs/${copy.id}`);
      },
    }),
  );
  if (!roleCan(user.role, 'operateRuns')) return null;
  const can = (a: RunAction) => run.allowedActions.includes(a);
  const busy = pause.isPending || resume.isPending || cancel.isPending || clone.isPending;
  const error = pause.error ?? resume.error ?? cancel.error;
  return (
    <div className="flex flex-col items-end gap-2">
      <div className="flex flex-wrap items-center gap-2">
        {can('pause') && (
          <Button disabled={busy} onClick={() => pause.mutate({ id: run.id })}>
            Pause
          </Button>
        )}
        {can('resume') && (
          <Button variant="primary" disabled={busy} onClick={() => resume.mutate({ id: run.id })}>
            Resume
          </Button>
        )}
        {can('cancel') &&
          (confirmCancel ? (
            <>
              <span className="text-red-700">Cancel for good? It cannot be resumed.</span>
              <Button variant="danger" disabled={busy} onClick={() => cancel.mutate({ id: run.id })}>
                Confirm cancel
              </Button>
              <Button variant="ghost" onClick={() => setConfirmCancel(false)}>
                Keep running
              </Button>
            </>
          ) : (
            <Button variant="danger" disabled={busy} onClick={() => setConfirmCancel(true)}>
              Cancel run
            </Button>
          ))}
        <Button disabled={busy} onClick={() => setConfirmClone(true)} title="Create a new queued run with the same config">
          Clone
        </Button>
        <ConfirmDialog
          open={confirmClone}
          title={`Clone “${run.name}”?`}
          confirmLabel="Clone and queue"
          busy={clone.isPending}
          error={clone.error && <ErrorNotice title="Clone refused" error={clone.error} />}
          onConfirm={() => clone.mutate({ id: run.id })}
          onCancel={() => {
            setConfirmClone(false);
            clone.reset();
          }}
        >
          <p>
            A new run with the same config and seed is created and <strong>queued at once</strong>: it takes sandbox and policy capacity like any run (with a
            control arm too if this run has one).
          </p>
          <p>
            To change settings first, use <em>Edit &amp; launch copy</em> instead.
          </p>
        </ConfirmDialog>
        <Link className={buttonClass('ghost')} href={`/runs/new?from=${run.id}`} title="Open the launch form with this run's config">
          Edit &amp; launch copy
        </Link>
      </div>
      {error && <ErrorNotice title="Action failed" error={error} />}
    </div>
  );
}
