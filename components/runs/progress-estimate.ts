import { iterationLabel, phaseTitle, type PhaseEventData, type PhaseProgress } from '@/core/run-phases';

/**
 * The run page's progress panel as plain data: the step running now, the iteration and its
 * episodes, an episode-counting bar, and an ETA from the rates observed so far. Pure, so
 * its arithmetic is tested without a run (progress-estimate.unit.test.ts).
 */

export type ProgressInput = {
  status: string;
  now: number;
  iterations: number;
  /** iterations trained so far = the 0-based index of the iteration in progress */
  currentIteration: number;
  episodesPerIteration: number;
  episodesDone: number;
  episodesTotal: number;
  /** the current iteration's episodes: all, still pending, running now */
  iteration: { total: number; pending: number; running: number };
  startedAt: number | null;
  finishedAt: number | null;
  /** phase events, oldest first (core/run-phases.ts) */
  phases: { at: number; data: PhaseEventData }[];
  /** how far the phase in progress has got (held-out tasks), when it counts */
  phaseProgress?: PhaseProgress | null;
};

export type ProgressView = {
  /** the step running now ("SFT warm start (20 steps)"), or what the run's status says instead */
  now: string;
  /** how long the step has been running (ms), when known */
  sinceMs: number | null;
  /** "iteration 3 of 10", or null before the first */
  iteration: string | null;
  /** the current iteration's episodes (finished / all created so far) */
  iterationEpisodes: { done: number; total: number; running: number } | null;
  overall: { done: number; total: number };
  /** time left (ms); null until a rate has been observed, or when the run is not moving */
  etaMs: number | null;
  /** the ETA leaves out the learner steps (none has finished yet to time) */
  etaWithoutLearner: boolean;
  /** the learner step running now has taken longer than the observed mean: the ETA counts none of it */
  stepOverdue: boolean;
  /** observed rates behind the ETA */
  episodesPerSecond: number | null;
  learnerMs: number | null;
};

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * Time spent sampling (per iteration: its `sampling` start to its `learning` start, or to
 * now for the one in progress) and each finished learner step (its `learning` start to the
 * next iteration's `sampling` start, or the run's end for the last one).
 */
export function observedRates(p: ProgressInput) {
  const starts = p.phases.filter((m) => m.data.state === 'started');
  // a retried job writes its start again: the latest of each iteration's phase counts
  const last = (phase: string, iteration: number) => starts.filter((m) => m.data.phase === phase && m.data.iteration === iteration).at(-1);
  let samplingMs = 0;
  const learnMs: number[] = [];
  const moving = p.status === 'running';
  for (let k = 0; k <= Math.min(p.currentIteration, p.iterations - 1); k++) {
    const s = last('sampling', k);
    const l = last('learning', k);
    if (s) {
      const end = l?.at ?? (k === p.currentIteration && moving ? p.now : null);
      if (end != null && end > s.at) samplingMs += end - s.at;
    }
    if (l) {
      const end = last('sampling', k + 1)?.at ?? (k === p.iterations - 1 ? p.finishedAt : null);
      if (end != null && end > l.at) learnMs.push(end - l.at);
    }
  }
  // episodes finished per second of sampling (the counter covers every iteration sampled)
  const episodesPerSecond = samplingMs > 0 && p.episodesDone > 0 ? p.episodesDone / (samplingMs / 1000) : null;
  return { episodesPerSecond, learnerMs: mean(learnMs) };
}

/** The view of a run's progress at `p.now`. */
export function progressView(p: ProgressInput): ProgressView {
  const k = p.currentIteration;
  // before the first sampling phase the run is preparing version 0, not in an iteration yet
  const inIterations = p.status !== 'queued' && k < p.iterations && (k > 0 || p.phases.some((m) => m.data.phase === 'sampling'));
  const overall = { done: p.episodesDone, total: Math.max(p.episodesTotal, p.episodesDone) };
  const iterDone = Math.max(0, p.iteration.total - p.iteration.pending - p.iteration.running);
  const { episodesPerSecond, learnerMs } = observedRates(p);
  const latest = p.phases.at(-1);
  const learning = inIterations && p.phases.some((m) => m.data.phase === 'learning' && m.data.iteration === k);
  const base = {
    iteration: inIterations ? iterationLabel(k, p.iterations) : null,
    iterationEpisodes: inIterations ? { done: iterDone, total: p.iteration.total, running: p.iteration.running } : null,
    overall,
    episodesPerSecond,
    learnerMs,
  };
  const still = { etaMs: null, etaWithoutLearner: false, stepOverdue: false };
  if (p.status === 'completed') return { ...base, ...still, now: `completed all ${p.iterations} iterations`, sinceMs: null };
  if (p.status === 'failed' || p.status === 'cancelled') return { ...base, ...still, now: `${p.status}`, sinceMs: null };

  // the step now: the latest phase event, read with what follows it
  let now: string;
  if (!latest) now = p.status === 'queued' ? 'waiting for a worker to start the run' : inIterations ? `${base.iteration}: sampling` : p.status;
  else if (latest.data.state === 'started') {
    now = phaseTitle(latest.data);
    // k / N of a counted phase (held-out tasks), with what is left at the rate so far
    const pp = p.phaseProgress;
    if (pp && pp.key === latest.data.key && pp.done > 0 && pp.total > 0) {
      const left = ((p.now - latest.at) / pp.done) * (pp.total - pp.done);
      now += `: ${pp.done} / ${pp.total} tasks done${pp.done < pp.total ? `, about ${formatDuration(left)} left` : ''}`;
    }
  } else if (latest.data.phase === 'heldout_eval' && latest.data.iteration != null)
    now = `${iterationLabel(latest.data.iteration, p.iterations)}: learning (saving the new policy)`;
  else now = `${phaseTitle(latest.data)} done; starting the next step`;
  if (p.status === 'paused') return { ...base, ...still, now: `paused (was: ${now})`, sinceMs: null };
  const sinceMs = latest ? Math.max(0, p.now - latest.at) : p.startedAt ? Math.max(0, p.now - p.startedAt) : null;
  if (!inIterations || episodesPerSecond == null) return { ...base, ...still, now, sinceMs };

  // what is left: this iteration's unfinished episodes (none once it learns) and every later
  // iteration's; this iteration's learner step (less what it has run) and every later one
  const later = p.iterations - k - 1;
  const episodesLeft = (learning ? 0 : Math.max(0, p.iteration.total - iterDone)) + later * p.episodesPerIteration;
  let etaMs = (episodesLeft / episodesPerSecond) * 1000;
  let stepOverdue = false;
  if (learnerMs != null) {
    const learnStart = p.phases.filter((m) => m.data.phase === 'learning' && m.data.iteration === k).at(-1)?.at;
    const used = learning && learnStart != null ? p.now - learnStart : 0;
    stepOverdue = learning && used > learnerMs;
    etaMs += Math.max(0, learnerMs - used) + later * learnerMs;
  }
  return { ...base, now, sinceMs, etaMs: Math.round(etaMs), etaWithoutLearner: learnerMs == null, stepOverdue };
}

/** "4 min 10 s", "35 s", "2 h 5 min": a duration at the precision an ETA deserves. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 && m < 10 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
