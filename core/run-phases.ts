import { z } from 'zod';

/**
 * What a run is doing now, as run events: the RL workers write one `phase` event as each
 * phase begins (and, for the start-up phases, as it ends); the run page reads the latest to
 * say "SFT warm start", "held-out evaluation of policy v0", "iteration 3 of 10: sampling".
 * Writers: workers/rl/phase-events.ts. Readers: server/runs/progress.ts, components/runs.
 * Imports nothing from the project.
 */

/** The run event type of every phase event (run_events.type). */
export const PHASE_EVENT_TYPE = 'phase';

/**
 * A run's phases, in the order a run meets them: before its first iteration, the SFT warm
 * start and the held-out evaluation of the initial policy; then, per iteration, sampling
 * episodes, learning (the policy update) and the held-out evaluation of the new version.
 */
export const RUN_PHASES = ['sft', 'heldout_eval', 'sampling', 'learning'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];
export const PHASE_STATES = ['started', 'finished'] as const;
export type PhaseState = (typeof PHASE_STATES)[number];

/** run_events.data of a phase event. */
export const phaseEventData = z.object({
  phase: z.enum(RUN_PHASES),
  state: z.enum(PHASE_STATES),
  /** the iteration it belongs to, 0-based (absent before the first iteration) */
  iteration: z.number().int().nonnegative().optional(),
  /** the run's iterations, for "iteration k of n" */
  iterations: z.number().int().positive().optional(),
  /** what is evaluated: "initialisation", "policy v0", … */
  subject: z.string().max(80).optional(),
  /** SFT optimizer steps */
  steps: z.number().int().nonnegative().optional(),
  /** held-out tasks evaluated */
  tasks: z.number().int().nonnegative().optional(),
  /** episodes the sampling phase plans */
  episodes: z.number().int().nonnegative().optional(),
  /** on `finished`: how long the phase took */
  durationMs: z.number().nonnegative().optional(),
  /** on `finished`: the figure the phase produced (SFT loss, held-out pass@1) */
  loss: z.number().nullable().optional(),
  passAt1: z.number().optional(),
  /**
   * The job attempt that wrote it (events written outside the job's commit): a retried job
   * writes its phases again under attempt 2, so a reader sees a retry, not a duplicate.
   */
  attempt: z.number().int().positive().optional(),
  /** idempotency key: one event per key (job, attempt, phase, state, iteration, subject) */
  key: z.string().max(200).optional(),
});
export type PhaseEventData = z.infer<typeof phaseEventData>;

/** A run event's data as a phase event, or null when it is some other event. */
export function asPhaseEvent(e: { type: string; data: unknown }): PhaseEventData | null {
  if (e.type !== PHASE_EVENT_TYPE) return null;
  const r = phaseEventData.safeParse(e.data);
  return r.success ? r.data : null;
}

const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "iteration 3 of 10" from a 0-based iteration. */
export const iterationLabel = (iteration: number, iterations?: number) => `iteration ${iteration + 1}${iterations ? ` of ${iterations}` : ''}`;

/** What a phase is, as the run page's "now" line says it (no timing, no result). */
export function phaseTitle(d: PhaseEventData): string {
  switch (d.phase) {
    case 'sft':
      return `SFT warm start${d.steps != null ? ` (${plural(d.steps, 'step')})` : ''}`;
    case 'heldout_eval':
      return `${d.iteration != null ? `${iterationLabel(d.iteration, d.iterations)}: ` : ''}held-out evaluation${d.subject ? ` of ${d.subject}` : ''}${d.tasks != null ? ` (${plural(d.tasks, 'task')})` : ''}`;
    case 'sampling':
      return `${iterationLabel(d.iteration ?? 0, d.iterations)}: sampling${d.episodes != null ? ` ${plural(d.episodes, 'episode')}` : ''}`;
    case 'learning':
      return `${iterationLabel(d.iteration ?? 0, d.iterations)}: learning (policy update)`;
  }
}

/**
 * How far the phase in progress has got (runs.phase_progress), for phases that count their
 * items: the held-out evaluation's tasks. `key` is the started event's key, so a reader
 * matches it to the phase it belongs to (a stale one from an earlier phase is ignored).
 */
export type PhaseProgress = { key: string; done: number; total: number };

/** The event's message: the phase, its result when finished, and the attempt when it is a retry. */
export function phaseMessage(d: PhaseEventData): string {
  const retry = d.attempt && d.attempt > 1 ? ` (attempt ${d.attempt}: the job is retried after an earlier attempt stopped)` : '';
  if (d.state === 'started') return `${phaseTitle(d)} started${retry}`;
  const result: string[] = [];
  if (d.phase === 'sft' && d.loss != null) result.push(`loss ${d.loss.toFixed(3)}`);
  if (d.passAt1 != null) result.push(`pass@1 ${d.passAt1.toFixed(3)}`);
  if (d.durationMs != null) result.push(seconds(d.durationMs));
  return `${phaseTitle(d)} finished${result.length ? `: ${result.join(', ')}` : ''}${retry}`;
}
