import { describe, expect, it } from 'vitest';
import { formatDuration, progressView, type ProgressInput } from './progress-estimate';
import type { PhaseEventData } from '@/core/run-phases';

const S = 1000;
const mark = (at: number, data: Omit<PhaseEventData, 'iterations'>) => ({ at, data: { iterations: 4, ...data } });

/** A 4-iteration run, 10 episodes per iteration, as its phase events and counters say at `now`. */
const base = (over: Partial<ProgressInput>): ProgressInput => ({
  status: 'running',
  now: 0,
  iterations: 4,
  currentIteration: 0,
  episodesPerIteration: 10,
  episodesDone: 0,
  episodesTotal: 40,
  iteration: { total: 10, pending: 10, running: 0 },
  startedAt: 0,
  finishedAt: null,
  phases: [],
  ...over,
});

const lateInput = (phases: ProgressInput['phases']): Partial<ProgressInput> => ({
  now: 65 * S,
  currentIteration: 1,
  episodesDone: 20,
  iteration: { total: 10, pending: 0, running: 0 },
  phases: [...phases, { at: 50 * S, data: { iterations: 4, phase: 'learning', state: 'started', iteration: 1 } }],
});

describe('run progress view', () => {
  it('names the start-up phase running now, before the run has iterations, with no ETA', () => {
    const v = progressView(
      base({
        status: 'queued',
        now: 7 * S,
        iteration: { total: 0, pending: 0, running: 0 },
        phases: [
          mark(0, { phase: 'heldout_eval', state: 'started', subject: 'the initialisation', tasks: 4 }),
          mark(2 * S, { phase: 'heldout_eval', state: 'finished', subject: 'the initialisation', tasks: 4, passAt1: 0 }),
          mark(3 * S, { phase: 'sft', state: 'started', steps: 20 }),
        ],
      }),
    );
    expect(v.now).toBe('SFT warm start (20 steps)');
    expect(v.sinceMs).toBe(4 * S);
    expect(v.iteration).toBeNull();
    expect(v.iterationEpisodes).toBeNull();
    expect(v.etaMs).toBeNull();
  });

  it('a running run preparing version 0 is not in an iteration yet; held-out evaluation shows k / N tasks and the time left', () => {
    const started = mark(10 * S, { phase: 'heldout_eval', state: 'started', subject: 'policy v0', tasks: 8, key: 'job:1:1:heldout_eval:started:-:policy v0' });
    const v = progressView(
      base({
        status: 'running',
        now: 30 * S,
        iteration: { total: 0, pending: 0, running: 0 },
        phases: [started],
        phaseProgress: { key: 'job:1:1:heldout_eval:started:-:policy v0', done: 2, total: 8 },
      }),
    );
    // 20 s for 2 tasks: 6 left at 10 s each
    expect(v.now).toBe('held-out evaluation of policy v0 (8 tasks): 2 / 8 tasks done, about 1 min left');
    expect(v.iteration).toBeNull();
    expect(v.iterationEpisodes).toBeNull();
    // a count left over from an earlier phase is not this one's
    const stale = progressView(
      base({ now: 30 * S, phases: [started], phaseProgress: { key: 'job:1:1:heldout_eval:started:-:the initialisation', done: 4, total: 4 } }),
    );
    expect(stale.now).toBe('held-out evaluation of policy v0 (8 tasks)');
  });

  it('says a queued run with no phase yet waits for a worker', () => {
    expect(progressView(base({ status: 'queued', startedAt: null })).now).toBe('waiting for a worker to start the run');
  });

  it('counts the iteration episodes and estimates from the sampling rate, learner unknown until one step finished', () => {
    // iteration 1 of 4 sampling for 10 s: 5 of 10 episodes done → 0.5 episode/s
    const v = progressView(
      base({
        now: 10 * S,
        episodesDone: 5,
        iteration: { total: 10, pending: 3, running: 2 },
        phases: [mark(0, { phase: 'sampling', state: 'started', iteration: 0, episodes: 10 })],
      }),
    );
    expect(v.now).toBe('iteration 1 of 4: sampling 10 episodes');
    expect(v.iteration).toBe('iteration 1 of 4');
    expect(v.iterationEpisodes).toEqual({ done: 5, total: 10, running: 2 });
    expect(v.overall).toEqual({ done: 5, total: 40 });
    expect(v.episodesPerSecond).toBeCloseTo(0.5);
    // 5 left here + 30 in three later iterations, at 0.5/s
    expect(v.etaMs).toBe(70 * S);
    expect(v.etaWithoutLearner).toBe(true);
  });

  it('adds the observed learner time per step left, less what the running step has used', () => {
    // iteration 1: sampled 0–20 s (10 episodes), learned 20–30 s; iteration 2: sampling from 30 s
    const phases = [
      mark(0, { phase: 'sampling', state: 'started', iteration: 0 }),
      mark(20 * S, { phase: 'learning', state: 'started', iteration: 0 }),
      mark(30 * S, { phase: 'sampling', state: 'started', iteration: 1 }),
    ];
    const sampling = progressView(base({ now: 40 * S, currentIteration: 1, episodesDone: 15, iteration: { total: 10, pending: 5, running: 0 }, phases }));
    // 15 episodes in 30 s of sampling = 0.5/s; 5 + 20 episodes left = 50 s; 3 learner steps × 10 s
    expect(sampling.learnerMs).toBe(10 * S);
    expect(sampling.etaMs).toBe(80 * S);
    expect(sampling.etaWithoutLearner).toBe(false);

    // iteration 2 learning for 4 s: no episodes left in it, 6 s of its step, then 2 × (20 s + 10 s)
    const learning = progressView(
      base({
        now: 54 * S,
        currentIteration: 1,
        episodesDone: 20,
        iteration: { total: 10, pending: 0, running: 0 },
        phases: [...phases, mark(50 * S, { phase: 'learning', state: 'started', iteration: 1 })],
      }),
    );
    expect(learning.now).toBe('iteration 2 of 4: learning (policy update)');
    expect(learning.sinceMs).toBe(4 * S);
    // 20 episodes in 40 s of sampling = 0.5/s → 20 later episodes = 40 s; 6 s + 2 × 10 s learner
    expect(learning.etaMs).toBe(66 * S);
    expect(learning.stepOverdue).toBe(false);
    // the step has run 15 s, past the 10 s the last one took: none of it left in the ETA, and it says so
    const late = progressView({ ...base({}), ...lateInput(phases) });
    expect(late.stepOverdue).toBe(true);
    expect(late.etaMs).toBe(60 * S);
  });

  it('reads the held-out evaluation inside a learner step as part of that iteration', () => {
    const v = progressView(
      base({
        now: 25 * S,
        episodesDone: 10,
        iteration: { total: 10, pending: 0, running: 0 },
        phases: [
          mark(0, { phase: 'sampling', state: 'started', iteration: 0 }),
          mark(20 * S, { phase: 'learning', state: 'started', iteration: 0 }),
          mark(22 * S, { phase: 'heldout_eval', state: 'started', iteration: 0, subject: 'policy v1', tasks: 4 }),
        ],
      }),
    );
    expect(v.now).toBe('iteration 1 of 4: held-out evaluation of policy v1 (4 tasks)');
    expect(v.sinceMs).toBe(3 * S);
  });

  it('takes the latest start of a phase a retried job wrote twice', () => {
    const v = progressView(
      base({
        status: 'queued',
        now: 100 * S,
        phases: [mark(0, { phase: 'sft', state: 'started', steps: 20, attempt: 1 }), mark(90 * S, { phase: 'sft', state: 'started', steps: 20, attempt: 2 })],
      }),
    );
    expect(v.now).toBe('SFT warm start (20 steps)');
    expect(v.sinceMs).toBe(10 * S);
  });

  it('has no ETA for a paused, completed or failed run, and says which', () => {
    const phases = [mark(0, { phase: 'sampling', state: 'started', iteration: 0 })];
    const paused = progressView(base({ status: 'paused', now: 10 * S, episodesDone: 5, phases }));
    expect(paused.now).toBe('paused (was: iteration 1 of 4: sampling)');
    expect(paused.etaMs).toBeNull();
    const done = progressView(base({ status: 'completed', currentIteration: 4, episodesDone: 40, phases }));
    expect(done.now).toBe('completed all 4 iterations');
    expect(done.iteration).toBeNull();
    expect(done.overall).toEqual({ done: 40, total: 40 });
    expect(progressView(base({ status: 'failed', phases })).etaMs).toBeNull();
  });
});

describe('formatDuration', () => {
  it('rounds to what an ETA deserves', () => {
    expect(formatDuration(35_400)).toBe('35 s');
    expect(formatDuration(250_000)).toBe('4 min 10 s');
    expect(formatDuration(25 * 60_000)).toBe('25 min');
    expect(formatDuration(125 * 60_000)).toBe('2 h 5 min');
  });
});
