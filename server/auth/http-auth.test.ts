import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { createContext } from '@/server/context';
import { appRouter } from '@/server/routers';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
  await createUser(database.db, { username: 'rita', password: 'reviewer-password', role: 'reviewer' }, 'test');
});

/** A request through the real tRPC fetch handler the Next route uses. */
async function call(path: string, input: unknown, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'POST') {
  const body = JSON.stringify(superjson.serialize(input));
  const url = method === 'GET' ? `http://localhost/api/trpc/${path}?input=${encodeURIComponent(body)}` : `http://localhost/api/trpc/${path}`;
  const req = new Request(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'POST' ? body : undefined });
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext(database.db, req, resHeaders, { trustProxy: false }),
  });
  const json = (await res.json()) as { result?: { data: unknown }; error?: { json: { message: string; data: { code: string; httpStatus: number } } } };
  return {
    status: res.status,
    setCookie: res.headers.get('set-cookie'),
    data: json.result ? superjson.deserialize(json.result.data as never) : undefined,
    error: json.error?.json,
  };
}

async function loginCookie(username: string, password: string) {
  const r = await call('auth.login', { username, password });
  expect(r.status).toBe(200);
  expect(r.setCookie).toMatch(/crucible_session=.+HttpOnly/);
  return r.setCookie!.split(';')[0]!;
}

describe('sessions, tokens and roles over HTTP', () => {
  it('wrong password is refused with one message for both cases', async () => {
    const a = await call('auth.login', { username: 'olga', password: 'nope' });
    const b = await call('auth.login', { username: 'nobody', password: 'nope' });
    expect(a.status).toBe(401);
    expect(a.error?.message).toBe('Wrong username or password.');
    expect(b.error?.message).toBe(a.error?.message);
  });

  it('a session cookie identifies the user; logout ends it', async () => {
    const cookie = await loginCookie('olga', 'operator-password');
    const me = await call('auth.me', undefined, { cookie }, 'GET');
    expect(me.data).toMatchObject({ username: 'olga', role: 'operator' });
    const created = await call('runs.create', { name: 'via http', config: {} }, { cookie });
    expect(created.status).toBe(200);
    await call('auth.logout', undefined, { cookie });
    expect((await call('auth.me', undefined, { cookie }, 'GET')).data).toBeNull();
    expect((await call('runs.list', {}, { cookie }, 'GET')).status).toBe(401);
  });

  it('a reviewer is refused runs.create with 403 FORBIDDEN and nothing is created', async () => {
    const cookie = await loginCookie('rita', 'reviewer-password');
    const before = (await database.sql`select count(*)::int as n from runs`)[0]!.n;
    const r = await call('runs.create', { name: 'sneaky', config: {} }, { cookie });
    expect(r.status).toBe(403);
    expect(r.error?.data.code).toBe('FORBIDDEN');
    expect(r.error?.message).toMatch(/reviewer/);
    expect((await database.sql`select count(*)::int as n from runs`)[0]!.n).toBe(before);
  });

  it('API tokens: shown once, hashed at rest, work as Bearer, stop working when revoked', async () => {
    const cookie = await loginCookie('olga', 'operator-password');
    const t = await call('tokens.create', { name: 'ci bot' }, { cookie });
    const token = (t.data as { token: string; id: string }).token;
    expect(token).toMatch(/^crc_/);
    const stored = await database.sql`select token_hash, prefix from api_tokens`;
    expect(JSON.stringify(stored)).not.toContain(token);
    const auth = { authorization: `Bearer ${token}` };
    expect((await call('auth.me', undefined, auth, 'GET')).data).toMatchObject({ username: 'olga' });
    expect((await call('runs.create', { name: 'by token', config: {} }, auth)).status).toBe(200);
    const audit = await database.sql`select actor from audit_log where action = 'run.create' order by seq desc limit 1`;
    expect(audit[0]!.actor).toBe('token:olga');
    await call('tokens.revoke', { id: (t.data as { id: string }).id }, { cookie });
    expect((await call('runs.list', {}, auth, 'GET')).status).toBe(401);
    expect((await call('runs.list', {}, { authorization: 'Bearer crc_forged' }, 'GET')).status).toBe(401);
  });

  it('passwords are stored as scrypt hashes', async () => {
    const [row] = await database.sql`select password_hash from users where username = 'olga'`;
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    expect(row!.password_hash).not.toContain('operator-password');
  });
});
