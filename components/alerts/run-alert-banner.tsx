'use client';
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc';

/** On a run's page: its firing alerts, one line each, linking to /alerts. Nothing when none fire. */
export function RunAlertBanner({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.alerts.list.queryOptions({ state: 'firing', runId }), refetchInterval: 30_000 });
  const firing = (q.data ?? []).filter((a) => !a.inhibitedBy);
  if (firing.length === 0) return null;
  const critical = firing.some((a) => a.severity === 'critical');
  return (
    <div
      role="alert"
      data-testid="run-alert-banner"
      className={`mb-4 rounded border px-3 py-2 text-sm ${critical ? 'border-red-300 bg-red-50 text-red-900' : 'border-amber-300 bg-amber-50 text-amber-900'}`}
    >
      <p className="font-medium">
        {firing.length} alert{firing.length === 1 ? '' : 's'} firing on this run ·{' '}
        <Link href={`/alerts?run=${runId}`} className="underline">
          open alerts
        </Link>
      </p>
      <ul className="mt-1 list-disc pl-5">
        {firing.slice(0, 5).map((a) => (
          <li key={a.id}>
            <span className="font-medium">{a.rule}</span>: {a.summary}
            {a.silencedBy ? ' (silenced)' : a.acknowledgedBy ? ` (acknowledged by ${a.acknowledgedBy})` : ''}
          </li>
        ))}
        {firing.length > 5 && <li>… and {firing.length - 5} more</li>}
      </ul>
    </div>
  );
}
