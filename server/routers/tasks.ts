import { z } from 'zod';
import { TASK_FILE_FORMATS, TASK_SPLITS } from '@/core/tasks';
import { settings } from '@/core/settings';
import { actorOf } from '@/server/auth/identity';
import { operatorProcedure, router, viewerProcedure } from '@/server/trpc';
import { importTasks, listSuiteTasks } from '@/server/tasks/service';
import { importPathPolicy } from '@/server/paths/import-path-policy';
import { mirrorSource } from '@/server/tasks/repo-mirrors';
import { DomainError } from '@/server/errors';
import { dataDir } from '@/db/open-database';
import { setSuiteSystemPrompt, suiteSystemPrompt } from '@/server/tasks/suite-system-prompt';

const suiteName = z
  .string()
  .trim()
  .min(1, 'name the suite')
  .max(200)
  .regex(/^[A-Za-z0-9._/-]+$/, 'suite names use letters, digits, ".", "_", "/" and "-"');

export const tasksRouter = router({
  /** A repository suite's system prompt for agents (null clears it); a run's own prompt overrides it. */
  setSystemPrompt: operatorProcedure
    .input(z.object({ suite: suiteName, systemPrompt: suiteSystemPrompt.nullable() }))
    .mutation(({ ctx, input }) => setSuiteSystemPrompt(ctx.db, input.suite, input.systemPrompt, actorOf(ctx.user))),
  list: viewerProcedure
    .input(z.object({ suite: suiteName, split: z.enum(TASK_SPLITS).optional() }))
    .query(({ ctx, input }) => listSuiteTasks(ctx.db, input.suite, input.split)),
  import: operatorProcedure
    .input(
      z.object({
        suite: suiteName,
        format: z.enum(TASK_FILE_FORMATS).default('crucible'),
        text: z.string().min(1, 'the file is empty').max(settings().CRUCIBLE_MAX_IMPORT_BYTES, 'the file is larger than CRUCIBLE_MAX_IMPORT_BYTES'),
        replace: z.boolean().default(false),
        /** where relative paths in repository task lines (workspace dirs, repo_path) start: the task file's directory */
        baseDir: z.string().min(1).max(4096).optional(),
        /** the in-process CLI's `--repos DIR|URL`: mirrors for SWE-bench lines naming `repo`; over the API only CRUCIBLE_REPO_MIRRORS is read */
        repos: z.string().min(1).max(4096).optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const local = ctx.user.via === 'local';
      // a path sent by a client is never read on the server: the API reads the mirrors an admin configured
      if (input.repos !== undefined && !local)
        throw new DomainError(
          'BAD_REQUEST',
          'repos names a location on the server; imports over the API read mirrors only from CRUCIBLE_REPO_MIRRORS (set on the server): leave repos out',
        );
      const mirrors = local && input.repos !== undefined ? input.repos : settings().CRUCIBLE_REPO_MIRRORS;
      return importTasks(ctx.db, input, actorOf(ctx.user), {
        // the in-process CLI may read its task file's directory; API callers only CRUCIBLE_IMPORT_ROOTS (docs/security.md)
        paths: importPathPolicy(settings().CRUCIBLE_IMPORT_ROOTS, { local, baseDir: input.baseDir }),
        caps: { maxFiles: settings().CRUCIBLE_WORKSPACE_MAX_FILES, maxBytes: settings().CRUCIBLE_WORKSPACE_MAX_BYTES },
        ...(mirrors !== undefined ? { mirrors: mirrorSource(mirrors, { cwd: process.cwd(), dataDir: dataDir() }) } : {}),
      });
    }),
});
