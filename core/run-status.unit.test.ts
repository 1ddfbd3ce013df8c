import { describe, expect, it } from 'vitest';
import {
  actionsFor,
  canTransition,
  nextStatus,
  refusal,
  RUN_STATUSES,
  RUN_TRANSITIONS,
  type RunStatus,
  type RunTransition,
  TERMINAL_RUN_STATUSES,
  wakesLoop,
} from './run-status';

// The whole machine as a plain table: from → transition → to ('-' = refused).
const expected: Record<RunStatus, Record<RunTransition, RunStatus | '-'>> = {
  queued: { start: 'running', complete: '-', fail: 'failed', pause: 'paused', resume: '-', cancel: 'cancelled' },
  running: { start: '-', complete: 'completed', fail: 'failed', pause: 'paused', resume: '-', cancel: 'cancelled' },
  paused: { start: '-', complete: '-', fail: '-', pause: '-', resume: 'queued', cancel: 'cancelled' },
  completed: { start: '-', complete: '-', fail: '-', pause: '-', resume: '-', cancel: '-' },
  failed: { start: '-', complete: '-', fail: '-', pause: '-', resume: '-', cancel: '-' },
  cancelled: { start: '-', complete: '-', fail: '-', pause: '-', resume: '-', cancel: '-' },
};

describe('run status machine', () => {
  it('allows exactly the transitions of the table', () => {
    const actual = Object.fromEntries(
      RUN_STATUSES.map((from) => [from, Object.fromEntries((Object.keys(RUN_TRANSITIONS) as RunTransition[]).map((t) => [t, nextStatus(from, t) ?? '-']))]),
    );
    expect(actual).toEqual(expected);
    for (const from of RUN_STATUSES) {
      for (const t of Object.keys(RUN_TRANSITIONS) as RunTransition[]) expect(canTransition(from, t)).toBe(expected[from][t] !== '-');
    }
  });

  it('resume returns to the status the run was paused from', () => {
    expect(nextStatus('paused', 'resume', 'running')).toBe('running');
    expect(nextStatus('paused', 'resume', 'queued')).toBe('queued');
    expect(nextStatus('paused', 'resume', null)).toBe('queued');
    expect(nextStatus('running', 'resume', 'running')).toBeNull();
  });

  it('terminal statuses allow nothing; operator actions per status', () => {
    for (const s of TERMINAL_RUN_STATUSES) expect(actionsFor(s)).toEqual([]);
    expect(actionsFor('queued')).toEqual(['pause', 'cancel']);
    expect(actionsFor('running')).toEqual(['pause', 'cancel']);
    expect(actionsFor('paused')).toEqual(['resume', 'cancel']);
  });

  it('entering queued or running wakes the RL loop; nothing else does', () => {
    expect(RUN_STATUSES.filter(wakesLoop)).toEqual(['queued', 'running']);
  });

  it('refusals say why and what to do', () => {
    expect(refusal('resume', 'cancelled')).toBe('run is cancelled; a cancelled run cannot be resumed. Clone it to run the same config again.');
    expect(refusal('complete', 'failed')).toMatch(/failed run cannot be completed/);
    expect(refusal('resume', 'running')).toBe('run is running, not paused; only a paused run can be resumed');
    expect(refusal('pause', 'paused')).toBe('run is paused; pause is allowed only from queued or running');
    expect(refusal('start', 'running')).toBe('run is running; start is allowed only from queued');
  });
});
