import { z } from 'zod';
import { adminProcedure, router } from '@/server/trpc';
import { anchorFile } from '@/server/audit/anchors';
import { listAudit, verifyAudit } from '@/server/audit/service';

export const auditRouter = router({
  list: adminProcedure
    .input(
      z.object({
        page: z.number().int().min(1).default(1),
        pageSize: z.number().int().min(1).max(500).default(50),
        targetType: z.string().max(50).optional(),
        targetId: z.string().max(100).optional(),
      }),
    )
    .query(({ ctx, input }) => listAudit(ctx.db, input)),
  // Checks against, and then extends, the anchor log in this server's data dir (server/audit/anchors.ts).
  verify: adminProcedure
    .input(
      z
        .object({
          expectHead: z
            .string()
            .regex(/^[0-9a-f]{64}$/, 'expectHead must be a head hash printed by `crucible audit verify` (64 hex digits)')
            .optional(),
        })
        .strict()
        .optional(),
    )
    .query(({ ctx, input }) => verifyAudit(ctx.db, { anchorFile: anchorFile(), expectHead: input?.expectHead })),
});
