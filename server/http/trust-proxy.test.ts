import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { trpcRoute } from './trpc-route';

// Behind a reverse proxy. Passed to the handlers, not set in the environment.
const httpSettings = parseSettings({ CRUCIBLE_TRUST_PROXY: '1' });

let database: Database;
let trpc: (req: Request) => Promise<Response>;
beforeAll(async () => {
  database = await freshDatabase();
  trpc = trpcRoute(async () => database.db, httpSettings);
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
});

/** What the app sees behind a TLS proxy: plain http to 127.0.0.1, the public side in X-Forwarded-*. */
const viaProxy = (path: string, input: unknown, headers: Record<string, string> = {}) =>
  trpc(
    new Request(`http://127.0.0.1:3000/api/trpc/${path}`, {
      method: 'POST',
      headers: { host: '127.0.0.1:3000', 'x-forwarded-host': 'crucible.example', 'x-forwarded-proto': 'https', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(superjson.serialize(input)),
    }),
  );

describe('with CRUCIBLE_TRUST_PROXY', () => {
  it('login over a TLS proxy sets a Secure session cookie', async () => {
    const res = await viaProxy('auth.login', { username: 'olga', password: 'operator-password' });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/crucible_session=.*;\s*Secure/i);
  });

  it('the forwarded host is the origin to match: the console behind the proxy works, other sites do not', async () => {
    const login = await viaProxy('auth.login', { username: 'olga', password: 'operator-password' }, { origin: 'https://crucible.example' });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect((await viaProxy('runs.create', { name: 'via proxy', config: {} }, { cookie, origin: 'https://crucible.example' })).status).toBe(200);
    expect((await viaProxy('runs.create', { name: 'forged', config: {} }, { cookie, origin: 'https://evil.example' })).status).toBe(403);
  });
});
