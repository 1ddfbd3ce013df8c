import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { trpcRoute } from './trpc-route';

let database: Database;
let trpc: (req: Request) => Promise<Response>;
let cookie: string;
beforeAll(async () => {
  database = await freshDatabase();
  // CRUCIBLE_MAX_BATCH left at its default (20): the limit a deployment gets without setting it.
  trpc = trpcRoute(async () => database.db, parseSettings({}));
  await createUser(database.db, { username: 'vic', password: 'viewer-password', role: 'viewer' }, 'test');
  const res = await trpc(
    new Request('http://localhost/api/trpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(superjson.serialize({ username: 'vic', password: 'viewer-password' })),
    }),
  );
  expect(res.status).toBe(200);
  cookie = res.headers.get('set-cookie')!.split(';')[0]!;
});

/** GET /api/trpc/runs.suites,…?batch=1: runs.suites creates the builtin suite, so running any call leaves a row. */
const suitesBatch = (n: number) => new Request(`http://localhost/api/trpc/${Array(n).fill('runs.suites').join(',')}?batch=1&input={}`, { headers: { cookie } });
const throttleRows = async () => database.sql`select key, failures from login_throttle order by key`;
const suiteRows = async () => (await database.sql<{ n: number }[]>`select count(*)::int as n from task_suites`)[0]!.n;

describe('tRPC batch size (CRUCIBLE_MAX_BATCH)', () => {
  it('a batch of 1000 calls is refused with 413 and a message saying what to do, before any call runs', async () => {
    const [suitesBefore, throttleBefore] = [await suiteRows(), await throttleRows()];
    expect(suitesBefore).toBe(0);
    const res = await trpc(suitesBatch(1000));
    expect(res.status).toBe(413);
    const json = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
    expect(json.error.json.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect(json.error.json.message).toBe('a batch of 1000 calls is more than the 20 one request may hold (CRUCIBLE_MAX_BATCH); send fewer calls per request');
    expect(await suiteRows()).toBe(0);
    // The same for POST batches (mutations): none of these password guesses is tried or counted.
    const post = await trpc(
      new Request(`http://localhost/api/trpc/${Array(21).fill('auth.login').join(',')}?batch=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [i, superjson.serialize({ username: 'vic', password: 'guess' })]))),
      }),
    );
    expect(post.status).toBe(413);
    expect(await throttleRows()).toEqual(throttleBefore);
  });

  it('a batch of exactly the limit runs every call', async () => {
    const res = await trpc(suitesBatch(20));
    expect(res.status).toBe(200);
    const json = (await res.json()) as unknown[];
    expect(json).toHaveLength(20);
    expect(await suiteRows()).toBe(3); // the bundled suites, builtin, stories and repo-suite, created on first use
  });
});
