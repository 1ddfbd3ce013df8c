import { diagnoseHandler } from '@/workers/reviews/diagnose';
import { createEnvSessionHandler } from '@/workers/environments/env-session-job';
import { settings } from '@/core/settings';
import { dataDir } from '@/db/open-database';
import { createRlHandlers } from '@/workers/rl/handlers';
import type { JobHandler } from '@/workers/jobs/job-handler';
import { configureOnnxRuntime } from '@/lib/policy/onnx-session';

// onnxruntime's log level and threads for this process (CRUCIBLE_POLICY_ORT_LOG, CRUCIBLE_POLICY_THREADS)
configureOnnxRuntime(settings());

/**
 * The job handlers every job worker runs, by queue. Episode rollout, reward scoring and
 * policy updates register here as they are built; tests load their own module instead
 * (`--handlers <module>` or CRUCIBLE_JOB_HANDLERS).
 */
export const handlers: JobHandler[] = [
  diagnoseHandler,
  createEnvSessionHandler(settings(), { dataDir: dataDir() }) as JobHandler,
  ...createRlHandlers(settings(), { dataDir: dataDir() }),
];
