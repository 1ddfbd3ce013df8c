import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { createContext } from '@/server/context';
import { appRouter } from '@/server/routers';
import { formatBytes, withBodyLimit } from './body-limit';
import { reportInternalError } from './internal-error';
import { crossSiteMessage, crossSiteReason } from './same-origin';

/**
 * The handler behind app/api/trpc/[trpc]: every tRPC request, with the JSON body limit and the
 * cross-site check applied before any procedure runs. Takes the database getter so tests
 * drive this exact handler against their own database.
 */
export function trpcRoute(database: () => Promise<Db>) {
  return async function handler(req: Request): Promise<Response> {
    const { CRUCIBLE_MAX_BODY_BYTES: limit, CRUCIBLE_TRUST_PROXY: trustProxy } = settings();
    const limited = withBodyLimit(req, limit, () => new TRPCError({
      code: 'PAYLOAD_TOO_LARGE',
      message: `request body is larger than ${formatBytes(limit)} (CRUCIBLE_MAX_BODY_BYTES); import large task files with \`crucible tasks import\` or POST /api/tasks/import`,
    }));
    const db = await database();
    return fetchRequestHandler({
      endpoint: '/api/trpc',
      req: limited,
      router: appRouter,
      createContext: ({ resHeaders }) => {
        // Thrown here, every call of the request fails with this error in tRPC's own shape.
        const reason = crossSiteReason(req, trustProxy);
        if (reason) throw new TRPCError({ code: 'FORBIDDEN', message: crossSiteMessage(reason) });
        return createContext(db, limited, resHeaders);
      },
      onError({ error, path }) {
        if (error.code === 'INTERNAL_SERVER_ERROR') reportInternalError(error, `tRPC ${path ?? '(unknown path)'}`);
      },
    });
  };
}
