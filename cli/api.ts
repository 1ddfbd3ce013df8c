import os from 'node:os';
import { createTRPCClient, httpLink, unstable_localLink, type TRPCClient, type TRPCLink } from '@trpc/client';
import type { inferRouterInputs } from '@trpc/server';
import superjson from 'superjson';
import { settings } from '@/core/settings';
import type { CurrentUser } from '@/server/auth/identity';
import type { AppRouter } from '@/server/routers';
import { CliError } from './args';
import { cliDatabase } from './database';

/** Options every API-backed command accepts. */
export const apiOptions = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The CLI's API: the console's tRPC procedures, typed end to end (`api.runs.create.mutate(…)`). */
type Api = TRPCClient<AppRouter>;

/**
 * Procedure inputs, for the casts at the argv boundary: parseArgs yields strings and the
 * procedures' zod schemas (not the CLI) decide what is valid, so a bad `--role` gets the same
 * message as from the console.
 */
export type ApiInputs = inferRouterInputs<AppRouter>;

/** Which console to call over HTTP, if any: `--url`/`--token`, else CRUCIBLE_URL/CRUCIBLE_TOKEN. */
export function apiTarget(values: Record<string, unknown>): { url: string | undefined; token: string | undefined } {
  const { CRUCIBLE_URL, CRUCIBLE_TOKEN } = settings();
  return { url: (values.url as string | undefined) ?? CRUCIBLE_URL, token: (values.token as string | undefined) ?? CRUCIBLE_TOKEN };
}

/** Over HTTP every call needs a token; said before anything is sent. */
export function requireToken(token: string | undefined): string {
  if (!token) throw new CliError('--url needs an API token: pass --token crc_… or set CRUCIBLE_TOKEN (create one with `crucible tokens create`)');
  return token;
}

/** The operator running the CLI in-process: the local admin (audit rows name them `cli:<username>`). */
export const localUser = (): CurrentUser => ({ id: null, username: os.userInfo().username, role: 'admin', displayName: null, via: 'local' });

/**
 * The CLI talks to the same tRPC procedures as the console, through one typed client: over
 * HTTP with `--url` and a token, or in-process against the database (local operator, trusted
 * like anyone holding the DB credentials). Either way inputs are validated and audited
 * identically. A failed call rejects with a TRPCClientError; main.ts turns it into the CLI's
 * message (cli/api-error.ts) for every command.
 */
export async function cliApi(values: Record<string, unknown>): Promise<Api> {
  const { url, token } = apiTarget(values);
  let link: TRPCLink<AppRouter>;
  if (url) {
    link = httpLink({ url: `${url.replace(/\/$/, '')}/api/trpc`, transformer: superjson, headers: { authorization: `Bearer ${requireToken(token)}` } });
  } else {
    // loaded only here: the whole server (every router, the database layer) is most of a
    // command's start-up, which `--url`, `--help` and a refused flag never need
    const [{ appRouter }, database] = await Promise.all([import('@/server/routers'), cliDatabase()]);
    const user = localUser();
    // With a transformer given, the local link hands values over as they are (Dates stay Dates), like a server-side caller.
    link = unstable_localLink({ router: appRouter, transformer: superjson, createContext: async () => ({ db: database.db, user }) });
  }
  return createTRPCClient<AppRouter>({ links: [link] });
}
