import { z } from 'zod';

// Payload schemas of the RL job kinds, checked by the job loop before a handler runs
// (workers/jobs/job-handler.ts `validatedPayload`). Producers: server/runs/lifecycle (rl.advance)
// and workers/rl/schedule.ts (rl.episode, rl.learn). Extra fields are kept, not refused.

const runId = z.uuid("runId must be the run's id (a uuid)");

/** rl.advance: start a queued run or top up a running one. */
export const advancePayload = z.looseObject({ runId });
/** rl.episode: roll out and score one episode. */
export const episodePayload = z.looseObject({ runId, episodeId: z.uuid("episodeId must be the episode's id (a uuid)") });
/** rl.learn: the learner step of one iteration. */
export const learnPayload = z.looseObject({ runId, iteration: z.number().int().nonnegative() });
