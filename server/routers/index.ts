import { createCallerFactory, router } from '@/server/trpc';
import { alertsRouter } from './alerts';
import { auditRouter } from './audit';
import { authRouter } from './auth';
import { episodesRouter } from './episodes';
import { logsRouter } from './logs';
import { modelsRouter } from './models';
import { environmentsRouter } from './environments';
import { resourcesRouter } from './resources';
import { reviewsRouter } from './reviews';
import { runsRouter } from './runs';
import { tasksRouter } from './tasks';
import { tokensRouter } from './tokens';
import { usersRouter } from './users';
import { workersRouter } from './workers';

/** One router per domain; procedures stay thin and call the services beside them. */
export const appRouter = router({
  auth: authRouter,
  runs: runsRouter,
  episodes: episodesRouter,
  tasks: tasksRouter,
  reviews: reviewsRouter,
  environments: environmentsRouter,
  users: usersRouter,
  tokens: tokensRouter,
  audit: auditRouter,
  workers: workersRouter,
  resources: resourcesRouter,
  models: modelsRouter,
  alerts: alertsRouter,
  logs: logsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
