import { describe, expect, it } from 'vitest';
import type { PhaseEventData } from '@/core/run-phases';
import { MAX_DRAWN_ITERATIONS, progressSegments, withPassAtK, type HeldoutPlan } from './progress-segments';

const mark = (at: number, data: Omit<PhaseEventData, 'iterations'>) => ({ at, data: { iterations: 3, ...data } });
const plan: HeldoutPlan = { tasks: 10, passAtK: 4, passAtKEvery: 2, perIteration: true };
const key = (subject: string, iteration?: number) => `job:1:1:heldout_eval:started:${iteration ?? '-'}:${subject}`;
const heldout = (at: number, subject: string, state: 'started' | 'finished', iteration?: number, tasks = 10) =>
  mark(at, { phase: 'heldout_eval', state, subject, iteration, tasks, ...(state === 'started' ? { key: key(subject, iteration) } : {}) });

/** A 3-iteration run, 8 episodes per iteration, 10 held-out tasks. */
const input = (over: Partial<Parameters<typeof progressSegments>[0]>) => ({
  status: 'running',
  iterations: 3,
  currentIteration: 0,
  episodesPerIteration: 8,
  iteration: { total: 0, pending: 0, running: 0 },
  phases: [],
  heldout: plan,
  ...over,
});
const summary = (v: ReturnType<typeof progressSegments>) => v.segments.map((s) => `${s.key} ${s.done}/${s.total} ${s.state}`);

describe('the progress bar’s segments', () => {
  it('lays out held-out v0, then each iteration’s training and the held-out evaluation of the version it made', () => {
    const v = progressSegments(input({ status: 'queued' }));
    expect(summary(v)).toEqual([
      'heldout:v0 0/10 pending',
      'train:0 0/8 pending',
      'heldout:v1 0/10 pending',
      'train:1 0/8 pending',
      'heldout:v2 0/10 pending',
      'train:2 0/8 pending',
      'heldout:v3 0/10 pending',
    ]);
    expect(v.percent).toBe(0);
    expect(v.current).toBeNull();
    expect(v.heldout).toEqual({ done: 0, total: 4 });
    // widths in rollouts: a task's greedy attempt plus pass@4's samples on v0, v2 and the last (v3)
    expect(v.segments.map((s) => s.weight)).toEqual([50, 8, 10, 8, 50, 8, 50]);
    expect([0, 1, 2, 3].map((n) => withPassAtK(n, 3, plan))).toEqual([true, false, true, true]);
  });

  it('counts the held-out evaluation running now k / N, from runs.phase_progress of that evaluation', () => {
    const phases = [heldout(0, 'the initialisation', 'started'), heldout(5, 'the initialisation', 'finished'), heldout(9, 'policy v0', 'started')];
    const v = progressSegments(input({ phases, phaseProgress: { key: key('policy v0'), done: 3, total: 10 } }));
    expect(summary(v).slice(0, 3)).toEqual(['heldout:init 10/10 done', 'heldout:v0 3/10 running', 'train:0 0/8 pending']);
    expect(v.current?.title).toBe('held-out evaluation of policy v0: 3 / 10 tasks (with pass@4)');
    expect(v.heldout).toEqual({ done: 1, total: 5 });
    // a stale count of another evaluation is not this one's
    const stale = progressSegments(input({ phases, phaseProgress: { key: key('the initialisation'), done: 10, total: 10 } }));
    expect(stale.current?.done).toBe(0);
  });

  it('fills an iteration by its episodes, then the evaluation of its version', () => {
    const v0 = [heldout(0, 'policy v0', 'started'), heldout(5, 'policy v0', 'finished'), mark(6, { phase: 'sampling', state: 'started', iteration: 0 })];
    const sampling = progressSegments(input({ phases: v0, iteration: { total: 8, pending: 3, running: 2 } }));
    expect(summary(sampling).slice(0, 3)).toEqual(['heldout:v0 10/10 done', 'train:0 3/8 running', 'heldout:v1 0/10 pending']);
    expect(sampling.current?.title).toBe('iteration 1 of 3, training: 3 / 8 episodes');
    // the learner step made v1 and evaluates it (the run's iteration counter moves at its commit)
    const evaluating = progressSegments(
      input({
        phases: [...v0, mark(20, { phase: 'learning', state: 'started', iteration: 0 }), heldout(25, 'policy v1', 'started', 0)],
        iteration: { total: 8, pending: 0, running: 0 },
        phaseProgress: { key: key('policy v1', 0), done: 7, total: 10 },
      }),
    );
    expect(summary(evaluating).slice(0, 4)).toEqual(['heldout:v0 10/10 done', 'train:0 8/8 done', 'heldout:v1 7/10 running', 'train:1 0/8 pending']);
    // weighted: v0 50 + train 8 + 7 of v1's 10, of 184
    expect(evaluating.percent).toBe(Math.floor(((50 + 8 + 7) / 184) * 100));
  });

  it('a completed run is full; a control arm (learning rate 0) only evaluates v0', () => {
    const done = progressSegments(input({ status: 'completed', currentIteration: 3 }));
    expect(done.segments.every((s) => s.state === 'done' && s.done === s.total)).toBe(true);
    expect(done.percent).toBe(100);
    const control = progressSegments(input({ heldout: { ...plan, perIteration: false } }));
    expect(control.segments.map((s) => s.key)).toEqual(['heldout:v0', 'train:0', 'train:1', 'train:2']);
  });

  it('a suite without held-out tasks has training segments only', () => {
    expect(progressSegments(input({ heldout: { ...plan, tasks: 0 } })).segments.map((s) => s.kind)).toEqual(['training', 'training', 'training']);
  });

  it('draws a long run’s iterations in blocks, counted in full, the running one in its block', () => {
    const iterations = 2000;
    const v = progressSegments(
      input({
        iterations,
        currentIteration: 500,
        iteration: { total: 8, pending: 4, running: 2 },
        phases: [{ at: 1, data: { phase: 'sampling', state: 'started', iteration: 500, iterations } }],
      }),
    );
    // v0, then a training and a held-out block for each of 24 blocks of ⌈2000/24⌉ = 84 iterations
    expect(v.segments).toHaveLength(1 + 2 * MAX_DRAWN_ITERATIONS);
    const [v0, train0, held0] = v.segments;
    expect(v0!.key).toBe('heldout:v0');
    expect(train0).toMatchObject({ kind: 'training', label: 'iterations 1–84', done: 84 * 8, total: 84 * 8, state: 'done' });
    // (no held-out phase events in this input: their blocks stay pending)
    expect(held0).toMatchObject({ kind: 'heldout', label: 'held-out v1–v84', total: 840, state: 'pending' });
    // iteration 501 (index 500) is in block 6 (iterations 421–504): partly trained, so running
    const running = v.segments.filter((s) => s.state === 'running');
    expect(running.map((s) => s.label)).toEqual(['iterations 421–504']);
    expect(running[0]!.done).toBe(80 * 8 + 2);
    // every episode and task still counted: the blocks add up to the iterations
    const sum = (kind: string, f: 'total' | 'weight') => v.segments.filter((s) => s.kind === kind).reduce((a, s) => a + s[f], 0);
    expect(sum('training', 'total')).toBe(iterations * 8);
    // the "now" line names the one iteration running, not its block
    expect(v.current?.label).toBe('iteration 501');
  });
});
