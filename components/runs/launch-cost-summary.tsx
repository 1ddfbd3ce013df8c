import { launchCost, type ClusterTotal } from './launch-cost';
import type { FormValues } from './run-form-fields';

const n = (x: number) => x.toLocaleString('en-US');

/** The launch form's live summary of what the run will cost, updated as fields change. */
export function LaunchCostSummary({ values, controlArm, total }: { values: FormValues; controlArm: boolean; total?: ClusterTotal | null }) {
  const c = launchCost(values, { controlArm, total });
  if (!c) return null;
  const range = (a: number, b: number) => (a === b ? n(a) : `${n(a)}–${n(b)}`);
  const heldout = c.heldoutTasks === null ? 'the deployment’s number of' : c.heldoutTasks === 0 ? 'every' : n(c.heldoutTasks);
  return (
    <section aria-label="Cost summary" data-testid="launch-cost" className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700">
      <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-600">What this launches</h2>
      <ul className="list-disc space-y-0.5 pl-5">
        <li data-testid="cost-episodes">
          {range(c.perIteration, c.perIterationMax)} training episodes per iteration, {range(c.total, c.totalMax)} in all
          {c.arms === 2 && <> — ×2 with the control arm: {range(c.total * 2, c.totalMax * 2)}</>}
          {c.perIterationMax > c.perIteration && ' (dynamic sampling may draw more groups)'}.
        </li>
        <li data-testid="cost-heldout">
          Held-out: {n(c.heldoutVersions)} policy versions (v0 and one per iteration), each on {heldout} held-out task(s)
          {c.passAtK && c.passAtK.k > 0 && `; pass@${c.passAtK.k} (${c.passAtK.k} samples per task) on ${n(c.passAtK.versions)} of them`}
          {c.arms === 2 && '; the control arm evaluates its own'}.
        </li>
        {c.concurrentCpus > 0 && (
          <li>
            At full concurrency: {c.concurrentCpus} vCPUs and {n(c.concurrentMemoryMb)} MB of sandbox quota
            {total ? ` of the cluster’s ${total.cpus} vCPUs, ${n(total.memoryMb)} MB` : ''}.
          </li>
        )}
      </ul>
      {c.warnings.map((w) => (
        <p key={w} role="status" data-testid="cost-warning" className="mt-1 text-xs text-amber-800">
          {w}
        </p>
      ))}
    </section>
  );
}
