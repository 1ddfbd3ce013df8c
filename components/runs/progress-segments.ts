import type { PhaseEventData } from '@/core/run-phases';
import type { ProgressInput } from './progress-estimate';

/**
 * The run page's progress bar as segments, in the order the run meets them: the held-out
 * evaluation of the initialisation (with a warm start), of policy v0, then per iteration its
 * training (sampling + the learner step) and the held-out evaluation of the version it made
 * (a control arm, learning rate 0, only evaluates v0: its weights never change). Each segment
 * counts its own items, k / N: held-out tasks, or the iteration's episodes; its width is the
 * work it holds in rollouts (an episode, or a held-out task's greedy attempt plus its pass@k
 * samples where that version gets pass@k). Pure, so it is unit-tested
 * (progress-segments.unit.test.ts).
 */

/** What the server knows of the run's held-out evaluation (runs.progress `heldout`). */
export type HeldoutPlan = {
  /** held-out tasks one evaluation covers (the suite's split, capped by the run's `heldout.tasks`) */
  tasks: number;
  /** pass@k samples per task on the versions that get them (0: off) */
  passAtK: number;
  /** pass@k every this many versions (and v0 and the last) */
  passAtKEvery: number;
  /** each iteration's new version is evaluated (false for a control arm: learning rate 0) */
  perIteration: boolean;
};

export type SegmentState = 'done' | 'running' | 'pending';
export type ProgressSegment = {
  key: string;
  kind: 'heldout' | 'training';
  /** "held-out v0", "iteration 2" */
  label: string;
  /** the whole line: "held-out evaluation of policy v1: 3 / 10 tasks" */
  title: string;
  done: number;
  total: number;
  /** "tasks" or "episodes" */
  unit: string;
  state: SegmentState;
  /** share of the bar, in rollouts */
  weight: number;
};

export type SegmentedProgress = {
  segments: ProgressSegment[];
  /** weighted share of all the work done, 0..100 (floored) */
  percent: number;
  /** the segment running now, if one is */
  current: ProgressSegment | null;
  /** held-out evaluations finished, of all planned */
  heldout: { done: number; total: number };
};

type Input = Pick<ProgressInput, 'status' | 'iterations' | 'currentIteration' | 'episodesPerIteration' | 'iteration' | 'phases' | 'phaseProgress'> & {
  heldout?: HeldoutPlan | null;
};

/** Versions that get pass@k: v0, every `every`-th and the last (workers/rl learn-job's rule). */
export const withPassAtK = (version: number, iterations: number, plan: HeldoutPlan) =>
  plan.passAtK > 0 && (version === 0 || version >= iterations || (plan.passAtKEvery > 0 && version % plan.passAtKEvery === 0));

/** Which held-out segment a phase event belongs to: `init`, `v0`, `v3` (evaluated after iteration 2). */
function heldoutSlot(d: PhaseEventData): string | null {
  if (d.phase !== 'heldout_eval') return null;
  if (d.iteration != null) return `v${d.iteration + 1}`;
  return d.subject === 'the initialisation' ? 'init' : 'v0';
}

export function progressSegments(p: Input): SegmentedProgress {
  const plan = p.heldout ?? null;
  const completed = p.status === 'completed';
  // each held-out evaluation's latest attempt: its started event, and whether it finished after it
  const evals = new Map<string, { started: { at: number; data: PhaseEventData }; finished: boolean }>();
  for (const m of p.phases) {
    const slot = heldoutSlot(m.data);
    if (!slot) continue;
    if (m.data.state === 'started') evals.set(slot, { started: m, finished: false });
    else {
      const e = evals.get(slot);
      if (e) e.finished = true;
    }
  }
  const sampled = p.phases.some((m) => m.data.phase === 'sampling');
  const k = p.currentIteration;
  const inIterations = p.status !== 'queued' && k < p.iterations && (k > 0 || sampled);

  const segments: ProgressSegment[] = [];
  const heldoutSegment = (slot: string, subject: string, version: number | null) => {
    const e = evals.get(slot);
    const planned = plan?.tasks ?? 0;
    const total = e?.started.data.tasks ?? planned;
    const stopped = p.status === 'failed' || p.status === 'cancelled';
    // tasks done: the live count (runs.phase_progress) where it is this evaluation's
    const counted = p.phaseProgress && e && p.phaseProgress.key === e.started.data.key ? Math.min(p.phaseProgress.done, total) : 0;
    const state: SegmentState = e?.finished || (completed && (e || version !== null)) ? 'done' : e && !stopped ? 'running' : 'pending';
    const done = state === 'done' ? total : counted;
    const passK = plan && version !== null && withPassAtK(version, p.iterations, plan) ? plan.passAtK : 0;
    const label = slot === 'init' ? 'held-out: initialisation' : `held-out ${slot}`;
    segments.push({
      key: `heldout:${slot}`,
      kind: 'heldout',
      label,
      title: `held-out evaluation of ${subject}: ${done} / ${total} tasks${passK ? ` (with pass@${passK})` : ''}`,
      done,
      total,
      unit: 'tasks',
      state,
      weight: Math.max(1, total * (1 + passK)),
    });
  };

  // the initialisation is evaluated only with a warm start, first of all: shown once it has begun
  if (evals.has('init')) heldoutSegment('init', 'the initialisation', null);
  const evaluates = (plan && plan.tasks > 0) || evals.size > 0;
  if (evaluates) heldoutSegment('v0', 'policy v0', 0);
  for (let i = 0; i < p.iterations; i++) {
    const perIteration = p.episodesPerIteration;
    const trained = i < k || completed || evals.has(`v${i + 1}`);
    const now = !trained && inIterations && i === k;
    const total = now ? Math.max(perIteration, p.iteration.total) : perIteration;
    const done = trained ? total : now ? Math.max(0, p.iteration.total - p.iteration.pending - p.iteration.running) : 0;
    const state: SegmentState = trained ? 'done' : now && p.status !== 'failed' && p.status !== 'cancelled' ? 'running' : 'pending';
    segments.push({
      key: `train:${i}`,
      kind: 'training',
      label: `iteration ${i + 1}`,
      title: `iteration ${i + 1} of ${p.iterations}, training: ${done} / ${total} episodes`,
      done,
      total,
      unit: 'episodes',
      state,
      weight: Math.max(1, perIteration),
    });
    // the version this iteration makes is evaluated (not by a control arm; unless it already was)
    if (evaluates && ((plan?.perIteration ?? true) || evals.has(`v${i + 1}`))) heldoutSegment(`v${i + 1}`, `policy v${i + 1}`, i + 1);
  }

  const all = segments.reduce((a, s) => a + s.weight, 0);
  const doneWork = segments.reduce((a, s) => a + (s.total > 0 ? (s.weight * Math.min(s.done, s.total)) / s.total : s.state === 'done' ? s.weight : 0), 0);
  const evalSegments = segments.filter((s) => s.kind === 'heldout');
  return {
    segments: coalesceIterations(segments, p.iterations),
    percent: completed ? 100 : all > 0 ? Math.min(100, Math.floor((doneWork / all) * 100)) : 0,
    current: segments.find((s) => s.state === 'running') ?? null,
    heldout: { done: evalSegments.filter((s) => s.state === 'done').length, total: evalSegments.length },
  };
}

/** At most this many iterations are drawn one by one; a longer run's are drawn in blocks. */
export const MAX_DRAWN_ITERATIONS = 24;

/** The iteration a segment belongs to (`train:i`, `heldout:v{i+1}`), or null for v0 and the initialisation. */
function iterationOf(s: ProgressSegment): number | null {
  if (s.key.startsWith('train:')) return Number(s.key.slice('train:'.length));
  const v = /^heldout:v(\d+)$/.exec(s.key);
  return v && Number(v[1]) > 0 ? Number(v[1]) - 1 : null;
}

/**
 * A run of thousands of iterations would draw thousands of 2-px segments (wider than the
 * bar, and redrawn on every poll): past MAX_DRAWN_ITERATIONS, consecutive iterations share one
 * training and one held-out segment, each counting what its iterations hold. The counts, the
 * percentage and the "now" line are computed before this, from every iteration.
 */
export function coalesceIterations(segments: ProgressSegment[], iterations: number): ProgressSegment[] {
  if (iterations <= MAX_DRAWN_ITERATIONS) return segments;
  const per = Math.ceil(iterations / MAX_DRAWN_ITERATIONS);
  const out: ProgressSegment[] = [];
  const blocks = new Map<string, { seg: ProgressSegment; states: Set<SegmentState>; first: number; last: number }>();
  for (const s of segments) {
    const i = iterationOf(s);
    if (i === null) {
      out.push(s);
      continue;
    }
    const key = `${s.kind}:block${Math.floor(i / per)}`;
    let b = blocks.get(key);
    if (!b) {
      b = { seg: { ...s, key, done: 0, total: 0, weight: 0 }, states: new Set(), first: i, last: i };
      blocks.set(key, b);
      out.push(b.seg);
    }
    b.seg.done += s.done;
    b.seg.total += s.total;
    b.seg.weight += s.weight;
    b.states.add(s.state);
    b.last = i;
  }
  for (const { seg, states, first, last } of blocks.values()) {
    seg.state = states.size === 1 ? [...states][0]! : 'running';
    const span = first === last ? `${first + 1}` : `${first + 1}–${last + 1}`;
    if (seg.kind === 'training') {
      seg.label = `iterations ${span}`;
      seg.title = `iterations ${span} of ${iterations}, training: ${seg.done} / ${seg.total} episodes`;
    } else {
      const versions = first === last ? `v${first + 1}` : `v${first + 1}–v${last + 1}`;
      seg.label = `held-out ${versions}`;
      seg.title = `held-out evaluations of policies ${versions}: ${seg.done} / ${seg.total} tasks`;
    }
  }
  return out;
}
