import { runStatusTones } from '@/components/runs/run-status';

// run statuses from their own table; episode and worker statuses share the same tones
const tones: Record<string, string> = {
  ...runStatusTones,
  pending: 'bg-slate-100 text-slate-700 ring-slate-300',
  scored: 'bg-emerald-50 text-emerald-700 ring-emerald-300',
  sandbox_error: 'bg-red-50 text-red-700 ring-red-300',
  env_mismatch: 'bg-red-50 text-red-700 ring-red-300',
  preempted: 'bg-amber-50 text-amber-800 ring-amber-300',
  masked: 'bg-purple-50 text-purple-700 ring-purple-300',
  stopped: 'bg-slate-200 text-slate-600 ring-slate-300',
  lost: 'bg-red-50 text-red-700 ring-red-300',
};

/** A run or episode status as a coloured pill; the text is the raw status for grepping. */
export function StatusBadge({ status }: { status: string }) {
  const tone = tones[status] ?? 'bg-slate-100 text-slate-700 ring-slate-300';
  return (
    <span data-testid="status" className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${tone}`}>
      {status === 'running' && <span className="mr-1 h-1.5 w-1.5 motion-safe:animate-pulse rounded-full bg-blue-500" />}
      {status}
    </span>
  );
}
