import os from 'node:os';
import { createTRPCUntypedClient, httpLink, TRPCClientError } from '@trpc/client';
import { TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { ZodError } from 'zod';
import { settings } from '@/core/settings';
import { describeIssues } from '@/server/errors';
import type { CurrentUser } from '@/server/auth/identity';
import { appRouter, createCaller, type AppRouter } from '@/server/routers';
import { CliError } from './args';
import { cliDatabase } from './database';

/** Options every API-backed command accepts. */
export const apiOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export type Call = (path: string, input?: unknown) => Promise<unknown>;

/** Which console to call over HTTP, if any: `--url`/`--token`, else CRUCIBLE_URL/CRUCIBLE_TOKEN. */
export function apiTarget(values: Record<string, unknown>): { url: string | undefined; token: string | undefined } {
  const { CRUCIBLE_URL, CRUCIBLE_TOKEN } = settings();
  return { url: (values.url as string | undefined) ?? CRUCIBLE_URL, token: (values.token as string | undefined) ?? CRUCIBLE_TOKEN };
}

/**
 * The CLI talks to the same tRPC procedures as the console: in-process against the
 * database (local operator, trusted like anyone holding the DB credentials), or over HTTP
 * with `--url` and a token. Either way inputs are validated and audited identically.
 */
export async function cliApi(values: Record<string, unknown>): Promise<Call> {
  const { url, token } = apiTarget(values);
  const procs = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  if (url) {
    if (!token) throw new CliError('--url needs an API token: pass --token crc_… or set CRUCIBLE_TOKEN (create one with `crucible tokens create`)');
    const untyped = createTRPCUntypedClient<AppRouter>({
      links: [httpLink({ url: `${url.replace(/\/$/, '')}/api/trpc`, transformer: superjson, headers: { authorization: `Bearer ${token}` } })],
    });
    return async (path, input) => {
      try {
        return procs[path]?._def.type === 'query' ? await untyped.query(path, input) : await untyped.mutation(path, input);
      } catch (e) {
        if (e instanceof TRPCClientError) throw new CliError(`${e.message}`, 1);
        throw e;
      }
    };
  }
  const database = await cliDatabase();
  const user: CurrentUser = { id: null, username: os.userInfo().username, role: 'admin', displayName: null, via: 'local' };
  const caller = createCaller({ db: database.db, user }) as unknown as Record<string, Record<string, (i: unknown) => Promise<unknown>>>;
  return async (path, input) => {
    const [ns, name] = path.split('.') as [string, string];
    try {
      return await caller[ns]![name]!(input);
    } catch (e) {
      if (e instanceof TRPCError) {
        throw new CliError(e.cause instanceof ZodError ? `invalid input: ${describeIssues(e.cause.issues)}` : e.message, 1);
      }
      throw e;
    }
  };
}
