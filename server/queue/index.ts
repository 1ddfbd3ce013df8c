// The Postgres work queue: see docs/queue.md for the guarantees and why it is our own.
export { enqueue, enqueueJob, enqueueInput, queueName, type EnqueueInput } from './enqueue';
export { claim, claimInput, type ClaimInput } from './claim';
export { renewLease, releaseLease } from './lease';
export { complete, type CompleteResult, type JobEffect } from './complete';
export { fail, describeError, type FailResult } from './fail';
export { backoffMs, defaultBackoff, type BackoffPolicy } from './backoff';
export { JobWakeup, type WakeReason } from './wakeup';
export type { ClaimedJob, Executor, Job, Tx } from './types';
export {
  workloadInput,
  defaultWorkload,
  heartbeatLease,
  yieldPreempted,
  schedulerAlive,
  LEARNER_REQUEST,
  type WorkloadInput,
  type Workload,
  type LeaseBeat,
} from './scheduled';
