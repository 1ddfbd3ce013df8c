import { z } from 'zod';
import { adminProcedure, router } from '@/server/trpc';
import { anchorFile } from '@/server/audit/anchors';
import { verifyAudit } from '@/server/audit/service';
import { auditActions, auditListSchema, listAudit } from '@/server/audit/list';

export const auditRouter = router({
  list: adminProcedure.input(auditListSchema).query(({ ctx, input }) => listAudit(ctx.db, input)),
  actions: adminProcedure.query(({ ctx }) => auditActions(ctx.db)),
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
