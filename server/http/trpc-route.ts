import { getErrorShape, transformTRPCResponse, TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { createContext } from '@/server/context';
import { appRouter } from '@/server/routers';
import { formatBytes, withBodyLimit } from './body-limit';
import { reportInternalError } from './internal-error';
import { crossSiteMessage, crossSiteReason } from './same-origin';

/**
 * The handler behind app/api/trpc/[trpc]: every tRPC request, with the JSON body limit and the
 * cross-site check applied before any procedure runs. Takes the database getter and the
 * settings so tests drive this exact handler against their own database and limits.
 */
export function trpcRoute(database: () => Promise<Db>, settings: Pick<Settings, 'CRUCIBLE_MAX_BODY_BYTES' | 'CRUCIBLE_TRUST_PROXY' | 'CRUCIBLE_MAX_BATCH'>) {
  const { CRUCIBLE_MAX_BODY_BYTES: limit, CRUCIBLE_TRUST_PROXY: trustProxy, CRUCIBLE_MAX_BATCH: maxBatch } = settings;
  return async function handler(req: Request): Promise<Response> {
    // Before anything is read or run: one request must not run an unbounded number of procedures.
    const tooMany = batchTooLarge(req, maxBatch);
    if (tooMany) return tooMany;
    const limited = withBodyLimit(
      req,
      limit,
      () =>
        new TRPCError({
          code: 'PAYLOAD_TOO_LARGE',
          message: `request body is larger than ${formatBytes(limit)} (CRUCIBLE_MAX_BODY_BYTES); import large task files with \`crucible tasks import\` or POST /api/tasks/import`,
        }),
    );
    const db = await database();
    return fetchRequestHandler({
      endpoint: '/api/trpc',
      req: limited,
      router: appRouter,
      // Also tRPC's own check (same limit), should a batch ever reach it by another route.
      maxBatchSize: maxBatch,
      createContext: ({ resHeaders }) => {
        // Thrown here, every call of the request fails with this error in tRPC's own shape.
        const reason = crossSiteReason(req, trustProxy);
        if (reason) throw new TRPCError({ code: 'FORBIDDEN', message: crossSiteMessage(reason) });
        return createContext(db, limited, resHeaders, { trustProxy });
      },
      onError({ error, path }) {
        if (error.code === 'INTERNAL_SERVER_ERROR') reportInternalError(error, `tRPC ${path ?? '(unknown path)'}`);
      },
    });
  };
}

const ENDPOINT = '/api/trpc/';

/**
 * A batch call (`?batch=1`, procedure paths joined by commas) with more than `max` calls is
 * answered 413 in tRPC's own error shape, without running any of them (CRUCIBLE_MAX_BATCH).
 */
function batchTooLarge(req: Request, max: number): Response | null {
  const url = new URL(req.url);
  if (url.searchParams.get('batch') !== '1') return null;
  const at = url.pathname.indexOf(ENDPOINT);
  const calls = at < 0 ? 1 : url.pathname.slice(at + ENDPOINT.length).split(',').length;
  if (calls <= max) return null;
  const error = new TRPCError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `a batch of ${calls} calls is more than the ${max} one request may hold (CRUCIBLE_MAX_BATCH); send fewer calls per request`,
  });
  const config = appRouter._def._config;
  const shape = getErrorShape({ config, error, type: 'unknown', path: undefined, input: undefined, ctx: undefined });
  return new Response(JSON.stringify(transformTRPCResponse(config, { error: shape })), {
    status: 413,
    headers: { 'content-type': 'application/json' },
  });
}
