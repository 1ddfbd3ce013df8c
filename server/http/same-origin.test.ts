import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { taskImportRoute } from './task-import-route';
import { trpcRoute } from './trpc-route';

// The handlers' settings, passed in (defaults), not read from the environment.
const httpSettings = parseSettings({});

// CRUCIBLE_TRUST_PROXY is off here (the default); trust-proxy.test.ts covers it on.
let database: Database;
let trpc: (req: Request) => Promise<Response>;
let upload: (req: Request) => Promise<Response>;
beforeAll(async () => {
  database = await freshDatabase();
  trpc = trpcRoute(async () => database.db, httpSettings);
  upload = taskImportRoute(async () => database.db, httpSettings);
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
});

async function call(path: string, input: unknown, headers: Record<string, string> = {}) {
  const res = await trpc(
    new Request(`http://crucible.example:3000/api/trpc/${path}`, {
      method: 'POST',
      headers: { host: 'crucible.example:3000', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(superjson.serialize(input)),
    }),
  );
  const json = (await res.json()) as { result?: unknown; error?: { json: { message: string; data: { code: string } } } };
  return { status: res.status, setCookie: res.headers.get('set-cookie'), error: json.error?.json };
}

async function loginCookie() {
  const r = await call('auth.login', { username: 'olga', password: 'operator-password' });
  expect(r.status).toBe(200);
  return r.setCookie!.split(';')[0]!;
}

const runCount = async () => (await database.sql`select count(*)::int as n from runs`)[0]!.n as number;

describe('CSRF: state-changing requests from other sites are refused', () => {
  it('a cookie-authenticated mutation with a foreign Origin is refused with 403 and changes nothing', async () => {
    const cookie = await loginCookie();
    const before = await runCount();
    const r = await call('runs.create', { name: 'csrf', config: {} }, { cookie, origin: 'https://evil.example' });
    expect(r.status).toBe(403);
    expect(r.error?.data.code).toBe('FORBIDDEN');
    expect(r.error?.message).toMatch(/cross-site request refused \(Origin evil\.example is not this server \(crucible\.example:3000\)\)/);
    expect(await runCount()).toBe(before);
  });

  it('Sec-Fetch-Site cross-site or same-site is refused even when Origin is missing; "null" origins too', async () => {
    const cookie = await loginCookie();
    expect((await call('runs.create', { name: 'x', config: {} }, { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await call('runs.create', { name: 'x', config: {} }, { cookie, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await call('runs.create', { name: 'x', config: {} }, { cookie, origin: 'null' })).status).toBe(403);
  });

  it('logout is a state-changing request too: a foreign logout does not end the session', async () => {
    const cookie = await loginCookie();
    expect((await call('auth.logout', undefined, { cookie, origin: 'https://evil.example' })).status).toBe(403);
    expect((await call('runs.create', { name: 'still signed in', config: {} }, { cookie })).status).toBe(200);
  });

  it('same-origin browsers and clients without Origin (CLI, automation) are allowed', async () => {
    const cookie = await loginCookie();
    expect(
      (await call('runs.create', { name: 'same origin', config: {} }, { cookie, origin: 'http://crucible.example:3000', 'sec-fetch-site': 'same-origin' }))
        .status,
    ).toBe(200);
    expect((await call('runs.create', { name: 'no origin', config: {} }, { cookie })).status).toBe(200);
  });

  it('without CRUCIBLE_TRUST_PROXY, X-Forwarded-Host does not make a foreign Origin ours', async () => {
    const cookie = await loginCookie();
    const r = await call('runs.create', { name: 'x', config: {} }, { cookie, origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' });
    expect(r.status).toBe(403);
  });

  it('the task upload route refuses a foreign Origin before reading the body', async () => {
    const cookie = await loginCookie();
    const res = await upload(
      new Request('http://crucible.example:3000/api/tasks/import?suite=csrf', {
        method: 'POST',
        headers: { host: 'crucible.example:3000', cookie, origin: 'https://evil.example' },
        body: '{}',
      }),
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/cross-site request refused/);
  });
});

describe('Secure cookies', () => {
  it('a client-sent X-Forwarded-Proto is not believed without CRUCIBLE_TRUST_PROXY', async () => {
    const r = await call('auth.login', { username: 'olga', password: 'operator-password' }, { 'x-forwarded-proto': 'https' });
    expect(r.setCookie).toMatch(/crucible_session=/);
    expect(r.setCookie).not.toMatch(/;\s*Secure/i);
  });
});
