import type { RunStatus } from '@/core/run-status';

/**
 * Badge colours of run statuses, keyed by the core type (core/run-status.ts holds the
 * statuses and which are active): a status added there does not compile until it has one.
 */
export const runStatusTones: Record<RunStatus, string> = {
  queued: 'bg-slate-100 text-slate-700 ring-slate-300',
  running: 'bg-blue-50 text-blue-700 ring-blue-300',
  paused: 'bg-amber-50 text-amber-800 ring-amber-300',
  completed: 'bg-emerald-50 text-emerald-700 ring-emerald-300',
  failed: 'bg-red-50 text-red-700 ring-red-300',
  cancelled: 'bg-slate-200 text-slate-600 ring-slate-300',
};
