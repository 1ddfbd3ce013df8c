import { z } from 'zod';
import { adminProcedure, router } from '@/server/trpc';
import { listAudit, verifyAudit } from '@/server/audit/service';

export const auditRouter = router({
  list: adminProcedure
    .input(z.object({
      page: z.number().int().min(1).default(1),
      pageSize: z.number().int().min(1).max(500).default(50),
      targetType: z.string().max(50).optional(),
      targetId: z.string().max(100).optional(),
    }))
    .query(({ ctx, input }) => listAudit(ctx.db, input)),
  verify: adminProcedure.query(({ ctx }) => verifyAudit(ctx.db)),
});
