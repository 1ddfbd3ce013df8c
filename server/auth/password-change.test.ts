import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { trpcRoute } from '@/server/http/trpc-route';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';

// The handlers' settings, passed in (defaults), not read from the environment.
const httpSettings = parseSettings({});

let database: Database;
let handler: (req: Request) => Promise<Response>;
beforeAll(async () => {
  database = await freshDatabase();
  handler = trpcRoute(async () => database.db, httpSettings);
  await createUser(database.db, { username: 'ada', password: 'admin-password', role: 'admin' }, 'test');
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
  await createUser(database.db, { username: 'pat', password: 'patient-password', role: 'operator' }, 'test');
});

/** A request through the real tRPC route the console uses. */
async function call(path: string, input: unknown, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'POST') {
  const body = JSON.stringify(superjson.serialize(input));
  const url = method === 'GET' ? `http://localhost/api/trpc/${path}?input=${encodeURIComponent(body)}` : `http://localhost/api/trpc/${path}`;
  const res = await handler(
    new Request(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'POST' ? body : undefined }),
  );
  const json = (await res.json()) as { result?: { data: unknown }; error?: { json: { message: string; data: { code: string } } } };
  return {
    status: res.status,
    cookie: res.headers.get('set-cookie')?.split(';')[0],
    data: json.result ? (superjson.deserialize(json.result.data as never) as Record<string, unknown> | null) : undefined,
    error: json.error?.json,
  };
}

async function signIn(username: string, password: string) {
  const r = await call('auth.login', { username, password });
  expect(r.status, r.error?.message).toBe(200);
  return { cookie: r.cookie!, user: r.data! };
}

const sessionsOf = async (username: string) =>
  (await database.sql<{ n: number }[]>`select count(*)::int as n from sessions s join users u on u.id = s.user_id where u.username = ${username}`)[0]!.n;
const lastAudit = async (action: string) =>
  (
    await database.sql<
      { actor: string; details: Record<string, unknown> }[]
    >`select actor, details from audit_log where action = ${action} order by seq desc limit 1`
  )[0];

describe('changing your own password', () => {
  it('needs the current password and the length rule; nothing changes when refused', async () => {
    const { cookie } = await signIn('olga', 'operator-password');
    const wrong = await call('auth.changePassword', { currentPassword: 'not-it', newPassword: 'a-brand-new-password' }, { cookie });
    expect(wrong.status).toBe(400);
    expect(wrong.error?.message).toMatch(/current password is wrong/);
    const short = await call('auth.changePassword', { currentPassword: 'operator-password', newPassword: 'short' }, { cookie });
    expect(short.status).toBe(400);
    expect(short.error?.message).toMatch(/newPassword: password must be at least 10 characters/);
    const anonymous = await call('auth.changePassword', { currentPassword: 'operator-password', newPassword: 'a-brand-new-password' });
    expect(anonymous.status).toBe(401);
    await signIn('olga', 'operator-password');
  });

  it('ends every other session, re-issues this one, and is audited', async () => {
    const other = await signIn('olga', 'operator-password');
    const mine = await signIn('olga', 'operator-password');
    const changed = await call('auth.changePassword', { currentPassword: 'operator-password', newPassword: 'olgas-new-password' }, { cookie: mine.cookie });
    expect(changed.status, changed.error?.message).toBe(200);
    expect(changed.cookie).toMatch(/^crucible_session=/);
    expect(changed.cookie).not.toBe(mine.cookie);
    // The old cookies are dead, including the one used to change; the new one works.
    expect((await call('auth.me', undefined, { cookie: other.cookie }, 'GET')).data).toBeNull();
    expect((await call('auth.me', undefined, { cookie: mine.cookie }, 'GET')).data).toBeNull();
    expect((await call('auth.me', undefined, { cookie: changed.cookie! }, 'GET')).data).toMatchObject({ username: 'olga' });
    expect(await sessionsOf('olga')).toBe(1);
    expect((await call('auth.login', { username: 'olga', password: 'operator-password' })).status).toBe(401);
    await signIn('olga', 'olgas-new-password');
    const audit = await lastAudit('auth.password_changed');
    expect(audit).toMatchObject({ actor: 'user:olga', details: { username: 'olga', sessionReissued: true } });
    expect(JSON.stringify(audit)).not.toContain('olgas-new-password');
  });
});

describe('admin password reset', () => {
  it('gives a one-time password, ends sessions, forces a change before anything else', async () => {
    const admin = await signIn('ada', 'admin-password');
    const victim = await signIn('pat', 'patient-password');
    // A token minted before the reset (by pat, or by whoever held pat's password) stops working with it.
    const token = (await call('tokens.create', { name: 'pat bot' }, { cookie: victim.cookie })).data!.token as string;
    expect((await call('runs.list', {}, { authorization: `Bearer ${token}` }, 'GET')).status).toBe(200);

    const refused = await call('users.resetPassword', { username: 'ada' }, { cookie: victim.cookie });
    expect(refused.status).toBe(403);
    const self = await call('users.resetPassword', { username: 'ada' }, { cookie: admin.cookie });
    expect(self.error?.message).toMatch(/cannot reset your own password/);

    const reset = await call('users.resetPassword', { username: 'pat' }, { cookie: admin.cookie });
    expect(reset.status, reset.error?.message).toBe(200);
    const oneTime = reset.data!.password as string;
    expect(oneTime.length).toBeGreaterThanOrEqual(10);
    expect(await sessionsOf('pat')).toBe(0);
    expect((await call('auth.me', undefined, { cookie: victim.cookie }, 'GET')).data).toBeNull();
    const audit = await lastAudit('user.password_reset');
    expect(audit).toMatchObject({ actor: 'user:ada', details: { username: 'pat', sessionsEnded: 1, tokensRevoked: 1, tokensKept: false } });
    expect(reset.data).toMatchObject({ tokensRevoked: 1 });
    expect((await call('runs.list', {}, { authorization: `Bearer ${token}` }, 'GET')).status).toBe(401);
    expect(JSON.stringify(audit)).not.toContain(oneTime);
    expect((await call('auth.login', { username: 'pat', password: 'patient-password' })).status).toBe(401);

    // Signed in with the one-time password: only me / changePassword / logout.
    const forced = await signIn('pat', oneTime);
    expect(forced.user).toMatchObject({ mustChangePassword: true });
    expect((await call('auth.me', undefined, { cookie: forced.cookie }, 'GET')).data).toMatchObject({ username: 'pat', mustChangePassword: true });
    const blocked = await call('runs.list', {}, { cookie: forced.cookie }, 'GET');
    expect(blocked.status).toBe(403);
    expect(blocked.error?.message).toMatch(/choose a new one first/);
    expect((await call('users.list', undefined, { cookie: admin.cookie }, 'GET')).data).toEqual(
      expect.arrayContaining([expect.objectContaining({ username: 'pat', mustChangePassword: true })]),
    );

    const changed = await call('auth.changePassword', { currentPassword: oneTime, newPassword: 'pats-own-password' }, { cookie: forced.cookie });
    expect(changed.status, changed.error?.message).toBe(200);
    expect((await call('runs.list', {}, { cookie: changed.cookie! }, 'GET')).status).toBe(200);
    expect((await call('auth.me', undefined, { cookie: changed.cookie! }, 'GET')).data).toMatchObject({ mustChangePassword: false });
    expect(await lastAudit('auth.password_changed')).toMatchObject({ actor: 'user:pat', details: { wasForced: true } });
  });

  it('revokeTokens: false keeps the API tokens working (the admin unticked it)', async () => {
    const admin = await signIn('ada', 'admin-password');
    const bot = await call('users.create', { username: 'botty', password: 'botty-password', role: 'operator' }, { cookie: admin.cookie });
    expect(bot.status, bot.error?.message).toBe(200);
    const botty = await signIn('botty', 'botty-password');
    const token = (await call('tokens.create', { name: 'ci' }, { cookie: botty.cookie })).data!.token as string;
    const reset = await call('users.resetPassword', { username: 'botty', revokeTokens: false }, { cookie: admin.cookie });
    expect(reset.data).toMatchObject({ tokensRevoked: 0 });
    expect(await lastAudit('user.password_reset')).toMatchObject({ details: { username: 'botty', tokensRevoked: 0, tokensKept: true } });
    expect((await call('runs.list', {}, { authorization: `Bearer ${token}` }, 'GET')).status).toBe(200);
  });

  it('lifts a sign-in lockout on that username', async () => {
    const admin = await signIn('ada', 'admin-password');
    for (let i = 0; i < 6; i++) await call('auth.login', { username: 'pat', password: 'guess' });
    expect((await call('auth.login', { username: 'pat', password: 'pats-own-password' })).status).toBe(429);
    const reset = await call('users.resetPassword', { username: 'pat' }, { cookie: admin.cookie });
    expect((await call('auth.login', { username: 'pat', password: reset.data!.password as string })).status).toBe(200);
  });
});
