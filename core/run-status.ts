/**
 * The run lifecycle as data: the statuses, and every transition between them (the system's
 * start/complete/fail and the operators' pause/resume/cancel) as one table. The database
 * enum, the API, the workers and the console all read it from here; the one place that
 * applies a transition is `server/runs/lifecycle.ts`. Imports nothing from the project.
 */

export const RUN_STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run never leaves (clone it to run the same config again). */
export const TERMINAL_RUN_STATUSES = ['completed', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];
/** Statuses in which a run changes on its own (the RL loop works on it): poll these. */
export const ACTIVE_RUN_STATUSES = ['queued', 'running'] as const satisfies readonly RunStatus[];
/** Statuses that still hold resources or may again (not terminal). */
export const LIVE_RUN_STATUSES = ['queued', 'running', 'paused'] as const satisfies readonly RunStatus[];

export const isTerminal = (status: string): boolean => (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);
export const isActive = (status: string): boolean => (ACTIVE_RUN_STATUSES as readonly string[]).includes(status);

/** Transitions the system makes: the RL loop starts, completes and fails runs. */
export const SYSTEM_TRANSITIONS = ['start', 'complete', 'fail'] as const;
/** Transitions an operator asks for (API, console, CLI). */
export const RUN_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export type SystemTransition = (typeof SYSTEM_TRANSITIONS)[number];
export type RunAction = (typeof RUN_ACTIONS)[number];
export type RunTransition = SystemTransition | RunAction;

/** Where resume goes: back to the status the run had when it was paused. */
export const BEFORE_PAUSE = 'before-pause' as const;

export type TransitionRule = {
  /** Statuses the transition is allowed from. */
  from: readonly RunStatus[];
  /** The status it leads to. */
  to: RunStatus | typeof BEFORE_PAUSE;
  /** The run event type it records (the system's are past tense, as the RL loop always wrote them). */
  eventType: string;
};

export const RUN_TRANSITIONS: Record<RunTransition, TransitionRule> = {
  start: { from: ['queued'], to: 'running', eventType: 'started' },
  complete: { from: ['running'], to: 'completed', eventType: 'completed' },
  // a paused run is not failed by its jobs giving up: the operator decides (resume or cancel)
  fail: { from: ['queued', 'running'], to: 'failed', eventType: 'failed' },
  pause: { from: ['queued', 'running'], to: 'paused', eventType: 'pause' },
  resume: { from: ['paused'], to: BEFORE_PAUSE, eventType: 'resume' },
  cancel: { from: ['queued', 'running', 'paused'], to: 'cancelled', eventType: 'cancel' },
};

/** Which statuses each operator action is allowed from. */
export const allowedFrom: Record<RunAction, readonly RunStatus[]> = {
  pause: RUN_TRANSITIONS.pause.from,
  resume: RUN_TRANSITIONS.resume.from,
  cancel: RUN_TRANSITIONS.cancel.from,
};

export function canTransition(from: RunStatus, transition: RunTransition): boolean {
  return RUN_TRANSITIONS[transition].from.includes(from);
}

/**
 * The status `transition` leads to from `from`, or null where it is not allowed.
 * `beforePause` is the status the run was paused from (resume returns there; a run with
 * no record of it is queued again, and the RL loop picks it up from its progress).
 */
export function nextStatus(from: RunStatus, transition: RunTransition, beforePause?: RunStatus | null): RunStatus | null {
  if (!canTransition(from, transition)) return null;
  const { to } = RUN_TRANSITIONS[transition];
  if (to !== BEFORE_PAUSE) return to;
  return beforePause === 'running' ? 'running' : 'queued';
}

/** The operator actions a run in `status` allows (the console shows only these). */
export function actionsFor(status: RunStatus): RunAction[] {
  return RUN_ACTIONS.filter((a) => canTransition(status, a));
}

/**
 * Whether entering `status` starts work for the RL loop: a queued run is to be started, a
 * running one continued, so the transition enqueues the loop's advance job with it.
 */
export const wakesLoop = (status: RunStatus): boolean => isActive(status);

/** Why `transition` is refused from `status`, and what to do instead. */
export function refusal(transition: RunTransition, status: RunStatus): string {
  const verb: Record<RunTransition, string> = {
    start: 'be started',
    complete: 'be completed',
    fail: 'be failed',
    pause: 'be paused',
    resume: 'be resumed',
    cancel: 'be cancelled',
  };
  if (isTerminal(status)) {
    return `run is ${status}; a ${status} run cannot ${verb[transition]}. Clone it to run the same config again.`;
  }
  if (transition === 'resume') return `run is ${status}, not paused; only a paused run can be resumed`;
  return `run is ${status}; ${transition} is allowed only from ${RUN_TRANSITIONS[transition].from.join(' or ')}`;
}
