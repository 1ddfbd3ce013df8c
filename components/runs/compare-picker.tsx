'use client';
import { useRouter } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { controlClass } from '../ui/layout-parts';

export const compareHref = (ids: string[]) => `/runs/compare?ids=${ids.join(',')}`;

/** On a run page: pick another recent run to open both on /runs/compare. */
export function ComparePicker({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const recent = useQuery(trpc.runs.list.queryOptions({ pageSize: 50 }));
  const others = (recent.data?.items ?? []).filter((r) => r.id !== runId);
  if (others.length === 0) return null;
  return (
    <select
      className={`${controlClass} w-56 text-xs`}
      aria-label="Compare with"
      value=""
      onChange={(e) => e.target.value && router.push(compareHref([runId, e.target.value]))}
    >
      <option value="">Compare with…</option>
      {others.map((r) => (
        <option key={r.id} value={r.id}>
          {r.name} ({r.id.slice(0, 8)})
        </option>
      ))}
    </select>
  );
}
