import { z } from 'zod';
import type { Settings } from '@/core/settings';
import { TASK_FILE_FORMATS } from '@/core/tasks';
import type { Db } from '@/db/client';
import { createContext } from '@/server/context';
import { describeIssues } from '@/server/errors';
import { createCaller } from '@/server/routers';
import { formatBytes, withBodyLimit } from './body-limit';
import { plainJsonError, plainJsonFail } from './plain-json-error';
import { refuseCrossSite } from './same-origin';

/**
 * POST /api/tasks/import?suite=NAME[&format=crucible|humaneval|crucible-repo|swebench][&replace=1] with the raw JSONL
 * file as the body. Task files can be far larger than the JSON body limit of /api/trpc, so this
 * route streams the body under its own limit (CRUCIBLE_MAX_IMPORT_BYTES) and then calls the same
 * `tasks.import` procedure as everyone else (role check, validation, audit).
 */
const query = z.object({
  suite: z.string({ error: 'name the suite: add ?suite=NAME to the URL' }),
  format: z.enum(TASK_FILE_FORMATS, { error: `format is one of ${TASK_FILE_FORMATS.join(', ')}` }).default('crucible'),
  replace: z
    .enum(['0', '1', 'true', 'false'], { error: 'replace is 1 or 0' })
    .optional()
    .transform((v) => v === '1' || v === 'true'),
});

class ImportTooLarge extends Error {}

const fail = plainJsonFail;

export function taskImportRoute(database: () => Promise<Db>, settings: Pick<Settings, 'CRUCIBLE_MAX_IMPORT_BYTES' | 'CRUCIBLE_TRUST_PROXY'>) {
  const { CRUCIBLE_MAX_IMPORT_BYTES: limit, CRUCIBLE_TRUST_PROXY: trustProxy } = settings;
  return async function POST(req: Request): Promise<Response> {
    const crossSite = refuseCrossSite(req, trustProxy);
    if (crossSite) return crossSite;
    const params = query.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!params.success) return fail(400, 'BAD_REQUEST', `invalid input: ${describeIssues(params.error.issues)}`);
    const db = await database();
    const ctx = await createContext(db, req, new Headers(), { trustProxy });
    // Refuse before reading the body: nobody unauthorised gets to make us read 64 MiB.
    if (!ctx.user) return fail(401, 'UNAUTHORIZED', 'sign in first (or send Authorization: Bearer <token>)');
    if (ctx.user.role !== 'admin' && ctx.user.role !== 'operator') {
      return fail(403, 'FORBIDDEN', `your role (${ctx.user.role}) cannot import tasks; ask an admin for operator access`);
    }
    let text: string;
    try {
      const body = await withBodyLimit(req, limit, () => new ImportTooLarge()).arrayBuffer();
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch (e) {
      if (e instanceof ImportTooLarge) {
        return fail(
          413,
          'PAYLOAD_TOO_LARGE',
          `the task file is larger than ${formatBytes(limit)} (CRUCIBLE_MAX_IMPORT_BYTES); split it into several suites or raise the limit`,
        );
      }
      if (e instanceof TypeError && /encoded data was not valid/i.test(e.message)) return fail(400, 'BAD_REQUEST', 'the task file is not valid UTF-8');
      throw e;
    }
    try {
      const { suite, imported, skippedLinks } = await createCaller(ctx).tasks.import({
        suite: params.data.suite,
        format: params.data.format,
        text,
        replace: params.data.replace,
      });
      // symbolic links left out of git workspaces, per task, as the in-process CLI lists them
      return Response.json({ suite: { id: suite.id, name: suite.name }, imported, ...(skippedLinks.length ? { skippedLinks } : {}) });
    } catch (e) {
      return plainJsonError(e, 'POST /api/tasks/import');
    }
  };
}
