import superjson from 'superjson';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { trpcRoute } from '@/server/http/trpc-route';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { ADDRESS_LIMITS, AUDIT_WINDOW_MS, beginAttempt, LOCKOUT_MS, ThrottledError, USER_LIMITS } from './throttle';

// Behind a trusted proxy, so each test picks its client address with X-Forwarded-For. Passed to the handlers, not set in the environment.
const httpSettings = parseSettings({ CRUCIBLE_TRUST_PROXY: '1' });

let database: Database;
let handler: (req: Request) => Promise<Response>;
beforeAll(async () => {
  database = await freshDatabase();
  handler = trpcRoute(async () => database.db, httpSettings);
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
  await createUser(database.db, { username: 'vera', password: 'viewer-password', role: 'viewer' }, 'test');
});
beforeEach(async () => {
  await database.sql`delete from login_throttle`;
});

type Result = { status: number; code?: string; message?: string; retryAfter: string | null };

/** One login through the real tRPC route, from `address` (the proxy's X-Forwarded-For). */
async function login(username: string, password: string, address: string): Promise<Result> {
  const res = await handler(
    new Request('http://localhost/api/trpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.99, ${address}` },
      body: JSON.stringify(superjson.serialize({ username, password })),
    }),
  );
  const json = (await res.json()) as { error?: { json: { message: string; data: { code: string } } } };
  return { status: res.status, code: json.error?.json.data.code, message: json.error?.json.message, retryAfter: res.headers.get('retry-after') };
}

/** Several logins in one tRPC batch request (`/api/trpc/auth.login,auth.login?batch=1`). */
async function batch(attempts: { username: string; password: string }[], address: string) {
  const body = Object.fromEntries(attempts.map((a, i) => [i, superjson.serialize(a)]));
  const res = await handler(
    new Request(`http://localhost/api/trpc/${attempts.map(() => 'auth.login').join(',')}?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify(body),
    }),
  );
  const json = (await res.json()) as { result?: unknown; error?: { json: { data: { code: string } } } }[];
  return json.map((r) => (r.error ? r.error.json.data.code : 'OK'));
}

const auditFailures = async () =>
  (await database.sql<{ details: Record<string, unknown> }[]>`select details from audit_log where action = 'auth.login_failed' order by seq`).map(
    (r) => r.details,
  );

describe('login throttling', () => {
  it('per username: free failures, then 429 with when to retry, even for the right password', async () => {
    // Each try from a new address: only the username counter is in play.
    for (let i = 0; i < USER_LIMITS.free; i++) expect((await login('olga', 'wrong', `192.0.2.${i}`)).status).toBe(401);
    const refused = await login('olga', 'operator-password', '192.0.2.200');
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('TOO_MANY_REQUESTS');
    expect(refused.message).toMatch(/Too many failed sign-ins.*Try again after \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+ s\)/);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // Unknown usernames are throttled the same way, so a lockout reveals nothing.
    for (let i = 0; i < USER_LIMITS.free; i++) expect((await login('nobody-here', 'wrong', `192.0.2.${50 + i}`)).status).toBe(401);
    expect((await login('nobody-here', 'wrong', '192.0.2.201')).status).toBe(429);
  });

  it('delays double, then a 15-minute lockout; a lockout that ends does not reset the count', async () => {
    const t0 = Date.now();
    const who = { username: 'vera', source: '192.0.2.77' };
    const at = (ms: number) => new Date(t0 + ms);
    let now = 0;
    const waits: number[] = [];
    for (let f = 1; f <= USER_LIMITS.lockAfter; f++) {
      await beginAttempt(database.db, { ...who, source: `192.0.2.${100 + f}` }, at(now)); // counted as a failure
      const [row] = await database.sql<
        { ms: number | null }[]
      >`select (extract(epoch from blocked_until) * 1000)::float8 as ms from login_throttle where key = 'user:vera'`;
      const wait = row!.ms ? Math.round(row!.ms - (t0 + now)) : 0;
      waits.push(wait);
      // Trying again before the wait is over is refused and does not count.
      if (wait) await expect(beginAttempt(database.db, who, at(now + wait - 1))).rejects.toBeInstanceOf(ThrottledError);
      now += wait;
    }
    expect(waits).toEqual([0, 0, 0, 0, 1000, 2000, 4000, 8000, 16000, LOCKOUT_MS]);
    // After the lockout one more failure locks again at once.
    await beginAttempt(database.db, who, at(now));
    await expect(beginAttempt(database.db, who, at(now + 60_000))).rejects.toThrow(/in 14 min/);
  });

  it('per address: many usernames from one address are throttled; another address is not', async () => {
    for (let i = 0; i < ADDRESS_LIMITS.free; i++) expect((await login(`spray-${i}`, 'wrong', '203.0.113.7')).status).toBe(401);
    expect((await login('olga', 'operator-password', '203.0.113.7')).status).toBe(429);
    expect((await login('olga', 'operator-password', '203.0.113.8')).status).toBe(200);
    // IPv6: one /64 is one address.
    for (let i = 0; i < ADDRESS_LIMITS.free; i++) expect((await login(`six-${i}`, 'wrong', `2001:db8:1:2::${i + 1}`)).status).toBe(401);
    expect((await login('olga', 'operator-password', '2001:db8:1:2:ffff::9')).status).toBe(429);
  });

  it('a tRPC batch counts each login attempt: it cannot try more passwords than the limit', async () => {
    const tries = Array.from({ length: 12 }, () => ({ username: 'olga', password: 'wrong' }));
    const codes = await batch(tries, '198.51.100.1');
    expect(codes.filter((c) => c === 'UNAUTHORIZED')).toHaveLength(USER_LIMITS.free);
    expect(codes.filter((c) => c === 'TOO_MANY_REQUESTS')).toHaveLength(tries.length - USER_LIMITS.free);
    const [row] = await database.sql<{ failures: number }[]>`select failures from login_throttle where key = 'user:olga'`;
    expect(row!.failures).toBe(USER_LIMITS.free);
    expect(await batch([{ username: 'olga', password: 'operator-password' }], '198.51.100.1')).toEqual(['TOO_MANY_REQUESTS']);
  });

  it('a successful sign-in resets the username counter but not the address counter', async () => {
    for (let i = 0; i < 3; i++) await login('olga', 'wrong', '198.51.100.2');
    expect((await login('olga', 'operator-password', '198.51.100.2')).status).toBe(200);
    const rows = await database.sql<{ key: string; failures: number }[]>`select key, failures from login_throttle order by key`;
    expect(rows).toEqual([{ key: 'addr:198.51.100.2', failures: 3 }]);
  });

  it('unknown and known usernames take the same time (a dummy hash is verified)', async () => {
    const time = async (username: string) => {
      await database.sql`delete from login_throttle`;
      const t = performance.now();
      expect((await login(username, 'wrong-password', '192.0.2.250')).status).toBe(401);
      return performance.now() - t;
    };
    await time('olga');
    await time('ghost'); // warm-up: the dummy hash is made once
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 15; i++) {
      known.push(await time('olga'));
      unknown.push(await time(`ghost-${i}`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [k, u] = [median(known), median(unknown)];
    expect(Math.abs(k - u) / k, `median known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms`).toBeLessThan(0.3);
  });

  it('throttle rows stay bounded: expired ones are pruned by later attempts', async () => {
    let checked = 0;
    for (let i = 0; i < 60; i++) if ((await login(`random-${i}`, 'wrong', '198.51.100.3')).status === 401) checked++;
    expect(checked).toBeLessThan(30);
    const [{ n } = { n: 0 }] = await database.sql<{ n: number }[]>`select count(*)::int as n from login_throttle`;
    // One per username that got a password check, plus the address; refused ones leave no row.
    expect(n).toBe(checked + 1);
    await database.sql`update login_throttle set expires_at = now() - interval '1 second', audit_window_start = null`;
    await login('olga', 'operator-password', '198.51.100.4');
    // Only the row of that (successful) attempt's address is left.
    expect((await database.sql`select key from login_throttle`).map((r) => r.key)).toEqual(['addr:198.51.100.4']);
  });
});

describe('failed logins in the audit log', () => {
  it('1000 failed logins from one source add O(1) audit rows, and the count is visible', async () => {
    const before = (await auditFailures()).length;
    // 50 batches of 20 (CRUCIBLE_MAX_BATCH): 5 are checked and fail, the rest are refused by the throttle.
    for (let b = 0; b < 50; b++) {
      const codes = await batch(
        Array.from({ length: 20 }, (_, i) => ({ username: i % 2 ? 'olga' : 'mallory', password: 'guess' })),
        '203.0.113.50',
      );
      expect(codes.every((c) => c === 'UNAUTHORIZED' || c === 'TOO_MANY_REQUESTS')).toBe(true);
    }
    const during = await auditFailures();
    expect(during.length - before).toBe(1);
    expect(during.at(-1)).toMatchObject({ source: '203.0.113.50', count: 1 });
    const [live] = await database.sql<{ audit_failures: number; audit_throttled: number }[]>`
      select audit_failures, audit_throttled from login_throttle where key = 'addr:203.0.113.50'`;
    expect(live!.audit_failures + live!.audit_throttled).toBe(1000);

    // The window closes; the next login attempt from anywhere writes the summary.
    await database.sql`update login_throttle set audit_window_start = audit_window_start - ${`${AUDIT_WINDOW_MS + 1000} milliseconds`}::interval`;
    expect((await login('vera', 'viewer-password', '203.0.113.51')).status).toBe(200);
    const after = await auditFailures();
    expect(after.length - before).toBe(2);
    expect(after.at(-1)).toMatchObject({ source: '203.0.113.50', summary: true, count: 1000 });
    expect(after.at(-1)!.failures as number).toBeGreaterThanOrEqual(USER_LIMITS.free);
    expect(JSON.stringify(after)).not.toContain('guess');
  });
});
