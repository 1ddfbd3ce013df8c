import { NODE_CPU_PART_LABELS, NODE_CPU_PARTS, type NodeCpuPart } from '@/core/compute';

/** One colour per part, in NODE_CPU_PARTS order (other: grey, what Crucible did not start). */
export const CPU_PART_COLOURS: Record<NodeCpuPart, string> = {
  workers: 'bg-sky-600',
  learner: 'bg-violet-600',
  sandboxes: 'bg-amber-500',
  platform: 'bg-teal-600',
  other: 'bg-slate-400',
};

const pct = (v: number) => `${(v * 100).toFixed(0)}%`;

/**
 * A node's CPU stacked by what uses it (core/compute.ts NODE_CPU_PARTS), each segment its share
 * of all the node's CPUs, so the bar's filled length is the node's utilisation; a legend with
 * each part's figure under it (`compact`: the bar alone, each part named in its tooltip: /workers' host header).
 */
export function CpuPartsBar({ node, parts, compact = false }: { node: string; parts: Record<NodeCpuPart, number>; compact?: boolean }) {
  const busy = NODE_CPU_PARTS.reduce((a, p) => a + parts[p], 0);
  return (
    <div data-testid="cpu-parts" data-node={node} className={compact ? 'inline-block w-28 align-middle' : undefined}>
      <div
        role="img"
        aria-label={`${node} CPU ${pct(busy)}: ${NODE_CPU_PARTS.map((p) => `${NODE_CPU_PART_LABELS[p]} ${pct(parts[p])}`).join(', ')}`}
        className={`flex w-full max-w-md overflow-hidden rounded bg-slate-200 ${compact ? 'h-1.5' : 'h-3'}`}
      >
        {NODE_CPU_PARTS.map((p) =>
          parts[p] > 0 ? (
            <span
              key={p}
              data-part={p}
              title={`${NODE_CPU_PART_LABELS[p]}: ${pct(parts[p])}`}
              className={`block h-full ${CPU_PART_COLOURS[p]}`}
              style={{ width: `${Math.min(100, parts[p] * 100).toFixed(2)}%` }}
            />
          ) : null,
        )}
      </div>
      {!compact && (
        <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-600">
          {NODE_CPU_PARTS.map((p) => (
            <li key={p} data-testid={`cpu-part-${p}`} className="flex items-center gap-1 tabular-nums">
              <span aria-hidden className={`inline-block h-2 w-2 rounded-sm ${CPU_PART_COLOURS[p]}`} />
              {NODE_CPU_PART_LABELS[p]} {pct(parts[p])}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
