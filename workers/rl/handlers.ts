import type { Settings } from '@/core/settings';
import type { JobHandler } from '@/workers/jobs/job-handler';
import { failRunOnGiveUp } from './give-up';
import { advanceJob } from './jobs/advance-job';
import { episodeJob } from './jobs/episode-job';
import { learnJob } from './jobs/learn-job';
import { createRlContext, type RlDeps } from './rl-context';

export type { RlDeps } from './rl-context';

/**
 * The RL job handlers (rl.advance, rl.episode, rl.learn: ./jobs), built from settings and the
 * process's directories, like `sandboxHandlers(options)`: one sandbox pool and artifact store per
 * instance (closed by the last handler's `close`), nothing read from the environment here.
 */
export function createRlHandlers(settings: Settings, deps: RlDeps): JobHandler[] {
  const c = createRlContext(settings, deps);
  return [advanceJob(c), episodeJob(c), { ...learnJob(c), close: c.close }].map(failRunOnGiveUp);
}
