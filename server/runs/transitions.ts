export type RunStatus = 'queued' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
export type RunAction = 'pause' | 'resume' | 'cancel';

/** Which statuses each operator action is allowed from. Enforced in SQL, atomically. */
export const allowedFrom: Record<RunAction, RunStatus[]> = {
  pause: ['queued', 'running'],
  resume: ['paused'],
  cancel: ['queued', 'running', 'paused'],
};

export const terminal: RunStatus[] = ['completed', 'failed', 'cancelled'];

export function actionsFor(status: RunStatus): RunAction[] {
  return (Object.keys(allowedFrom) as RunAction[]).filter((a) => allowedFrom[a].includes(status));
}

export function refusal(action: RunAction, status: RunStatus): string {
  if (terminal.includes(status)) {
    return `run is ${status}; a ${status} run cannot ${action === 'resume' ? 'be resumed' : `be ${action === 'pause' ? 'paused' : 'cancelled'}`}. Clone it to run the same config again.`;
  }
  if (action === 'resume') return `run is ${status}, not paused; only a paused run can be resumed`;
  return `run is ${status}; ${action} is allowed only from ${allowedFrom[action].join(' or ')}`;
}
