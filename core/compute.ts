import { RL_QUEUES } from './queues';

/**
 * Where the compute goes: the contract between what measures CPU (and GPU) time (the job loop's
 * meter in lib/compute, the sandbox manager, the metrics worker's node breakdown) and what shows
 * it (the run page, /resources, /api/metrics). Imports nothing from the project.
 */

/**
 * The phases a run's compute is split into (`run_compute.phase`), in the order a run meets them.
 * - `sampling`: the worker's own CPU playing episodes (policy forward passes, rendering, tool parsing)
 * - `sandbox`: CPU inside sandboxes while an episode is played (the candidate's code, the agent's tool calls)
 * - `grading`: scoring an episode: the grader's sandbox runs (tests) and the worker's own CPU scoring
 * - `learning`: the policy update (and the SFT warm start), in the learner's process
 * - `heldout_eval`: held-out evaluation of a policy version, worker and sandboxes together
 * - `other`: a run's bookkeeping jobs (dispatching an iteration, diagnoses)
 */
export const COMPUTE_PHASES = ['sampling', 'sandbox', 'grading', 'learning', 'heldout_eval', 'other'] as const;
export type ComputePhase = (typeof COMPUTE_PHASES)[number];

export const COMPUTE_PHASE_LABELS: Record<ComputePhase, string> = {
  sampling: 'Sampling',
  sandbox: 'Sandbox execution',
  grading: 'Grading',
  learning: 'Learning',
  heldout_eval: 'Held-out evaluation',
  other: 'Other (dispatch, diagnoses)',
};

/**
 * When scopes overlap in one job (a held-out evaluation grades its answers), the worker's own
 * CPU goes to the most specific one: the highest here.
 */
export const COMPUTE_PHASE_PRIORITY: Record<ComputePhase, number> = {
  other: 0,
  sampling: 1,
  learning: 1,
  sandbox: 2,
  grading: 3,
  heldout_eval: 4,
};

/** The phase a run's job counts in, outside any narrower scope (other queues with a run: `other`). */
export function jobComputePhase(queue: string): ComputePhase {
  if (queue === RL_QUEUES.episode) return 'sampling';
  if (queue === RL_QUEUES.learn) return 'learning';
  return 'other';
}

/** CPU (and GPU) seconds per phase. */
export type PhaseSeconds = Partial<Record<ComputePhase, number>>;
export type ComputeUsage = { cpu: PhaseSeconds; gpu: PhaseSeconds };

/** The phase of a sandbox's CPU: its own unless a grading or held-out scope is open. */
export function sandboxPhase(scope: ComputePhase): ComputePhase {
  return scope === 'grading' || scope === 'heldout_eval' ? scope : 'sandbox';
}

/**
 * The parts a node's CPU is stacked into on /resources (metric `node_cpu_part{node, part}`,
 * each a fraction 0..1 of the node's CPUs; the parts add up to `node_cpu_utilisation`).
 * - `workers`: Crucible's worker processes' own CPU (job, sandbox, scheduler, metrics… workers), less the learner
 * - `learner`: the job workers' CPU spent in the policy update
 * - `sandboxes`: the processes the workers started (sandboxes and their commands), exited ones included
 * - `platform`: the rest of what Crucible started: web console, embedded database, supervisor
 * - `other`: what the node does that Crucible did not start
 */
export const NODE_CPU_PARTS = ['workers', 'learner', 'sandboxes', 'platform', 'other'] as const;
export type NodeCpuPart = (typeof NODE_CPU_PARTS)[number];

export const NODE_CPU_PART_LABELS: Record<NodeCpuPart, string> = {
  workers: "Crucible's workers",
  learner: 'Learner',
  sandboxes: 'Sandboxes',
  platform: 'Console, database, supervisor',
  other: 'Other (not started by Crucible)',
};

/** CPU-seconds each part used over one sampling interval, and the node's busy and total CPU-seconds over it. */
export type NodeCpuSeconds = { busy: number; total: number; parts: Record<Exclude<NodeCpuPart, 'other'>, number> };

/**
 * The node's CPU stacked into its parts, each a fraction of its total CPU time: the measured
 * parts are scaled down together if they exceed what the node reports busy (they are read a
 * moment apart), and `other` is what is left, so the parts add up to the node's utilisation.
 */
export function nodeCpuBreakdown(s: NodeCpuSeconds): Record<NodeCpuPart, number> | null {
  if (!(s.total > 0)) return null;
  const busy = Math.min(Math.max(s.busy, 0), s.total);
  const measured = Object.values(s.parts).reduce((a, v) => a + Math.max(0, v), 0);
  const scale = measured > busy && measured > 0 ? busy / measured : 1;
  const frac = (v: number) => (Math.max(0, v) * scale) / s.total;
  const out = {
    workers: frac(s.parts.workers),
    learner: frac(s.parts.learner),
    sandboxes: frac(s.parts.sandboxes),
    platform: frac(s.parts.platform),
    other: 0,
  };
  out.other = Math.max(0, busy / s.total - (out.workers + out.learner + out.sandboxes + out.platform));
  return out;
}
