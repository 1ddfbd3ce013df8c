import { desc } from 'drizzle-orm';
import { workers } from '@/db/schema';
import { router, viewerProcedure } from '@/server/trpc';

export const workersRouter = router({
  list: viewerProcedure.query(({ ctx }) => ctx.db.select().from(workers).orderBy(desc(workers.heartbeatAt)).limit(500)),
});
