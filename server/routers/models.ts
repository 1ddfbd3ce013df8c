import { z } from 'zod';
import { modelName } from '@/core/models';
import { settings } from '@/core/settings';
import { actorOf } from '@/server/auth/identity';
import { importModel, listModels, runsOfModel, showModel, withModelStore } from '@/server/models/service';
import { importPathPolicy } from '@/server/paths/import-path-policy';
import { operatorProcedure, router, viewerProcedure } from '@/server/trpc';

export const modelsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listModels(ctx.db)),
  /** the row with its tokenizer's vocabulary and special ids, and the chat-template preview */
  show: viewerProcedure
    .input(z.object({ name: modelName }))
    .query(({ ctx, input }) => withModelStore(ctx.db, (store, root) => showModel(ctx.db, store, input.name, root))),
  /** the runs that train the model, newest first */
  runs: viewerProcedure.input(z.object({ name: modelName })).query(({ ctx, input }) => runsOfModel(ctx.db, input.name)),
  /** where an import over the API may read (CRUCIBLE_IMPORT_ROOTS), for the console's import form */
  importRoots: operatorProcedure.query(() => ({ roots: settings().CRUCIBLE_IMPORT_ROOTS })),
  /**
   * Register a Hugging Face directory. `dir` is read by the process that runs this procedure:
   * this host for the in-process CLI (any directory it names), the console's host over HTTP
   * (only under CRUCIBLE_IMPORT_ROOTS, as task imports: docs/security.md).
   */
  import: operatorProcedure.input(z.object({ name: modelName, dir: z.string().min(1, 'give the model directory').max(4096) })).mutation(({ ctx, input }) =>
    withModelStore(ctx.db, (store, root) =>
      importModel(ctx.db, store, input, actorOf(ctx.user), {
        paths: importPathPolicy(settings().CRUCIBLE_IMPORT_ROOTS, { local: ctx.user.via === 'local', baseDir: input.dir }, 'model'),
        root,
      }),
    ),
  ),
});
