import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { environments } from '@/db/schema';
import { setQuarantine } from '@/server/reviews/environments';
import { createContext } from '@/server/context';
import { appRouter } from '@/server/routers';
import { saveSuite } from '@/server/tasks/service';
import { createToken } from '@/server/tokens/service';
import { createUser } from '@/server/users/service';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';

// Environment names reach the env store as paths (docs/security.md): the API and task
// import refuse anything but the one pattern in core/environments.ts, with the rule.
const CRAFTED = ['..', '../..', '/', 'a/../../', 'a\0b', 'a'.repeat(64), 'x'.repeat(5000), 'Default', '', ' default'];
const RULE = /environment names are 1-63 characters/;

let database: Database;
let adminToken: string;
beforeAll(async () => {
  database = await freshDatabase();
  await createUser(database.db, { username: 'ada', password: 'admin-password-1', role: 'admin' }, 'test');
  adminToken = (await createToken(database.db, 'ada', 'test', 'test')).token;
  await database.db.insert(environments).values({ name: 'py311', contentHash: `sha256:${'ab'.repeat(32)}` });
});

/** A request through the real tRPC fetch handler the Next route uses, as the admin's API token. */
async function call(procedure: string, input: unknown) {
  const req = new Request(`http://localhost/api/trpc/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}`, origin: 'http://localhost' },
    body: JSON.stringify(superjson.serialize(input)),
  });
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext(database.db, req, resHeaders, { trustProxy: false }),
  });
  const json = (await res.json()) as { error?: { json: { message: string; data: { code: string } } } };
  return { status: res.status, error: json.error?.json };
}

// A name holding a NUL character is refused earlier, by the API's NUL check (server/trpc.ts), naming the field
const refusedFor = (name: string) => (name.includes('\0') ? /name contains a NUL character/ : RULE);

describe('environment names at the API', () => {
  it('environments.quarantine and clear refuse crafted names (BAD_REQUEST with the rule) through the caller', async () => {
    const admin = await callerAs(database.db, 'admin');
    for (const name of CRAFTED) {
      await expect(admin.environments.quarantine({ name, reason: 'x' }), JSON.stringify(name)).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(refusedFor(name)),
      });
      await expect(admin.environments.clear({ name }), JSON.stringify(name)).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(refusedFor(name)),
      });
    }
    await expect(admin.environments.quarantine({ name: 'py311', reason: 'test' })).resolves.toMatchObject({ name: 'py311' });
    await expect(admin.environments.clear({ name: 'py311' })).resolves.toMatchObject({ name: 'py311' });
  });

  it('the same over HTTP: 400 with the rule', async () => {
    for (const name of ['../..', 'a/../../', 'Default']) {
      const r = await call('environments.quarantine', { name });
      expect(r.status, name).toBe(400);
      expect(r.error?.data.code).toBe('BAD_REQUEST');
      expect(r.error?.message).toMatch(RULE);
    }
  });

  it('the service refuses them too (callers other than the router)', async () => {
    await expect(setQuarantine(database.db, '../..', true, 'test')).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/invalid environment name "\.\.\/\.\."/),
    });
  });
});

describe('environment names at task import', () => {
  const task = (env: string) =>
    JSON.stringify({ id: 'inc', language: 'python', prompt: 'def inc(x):\n', entryPoint: 'inc', tests: [{ input: [1], expected: 2 }], env });

  it('a task whose env is crafted is refused with its line and the rule; nothing is stored', async () => {
    const op = await callerAs(database.db, 'operator');
    for (const env of CRAFTED) {
      const err = await op.tasks.import({ suite: 'crafted', text: task(env) }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, JSON.stringify(env)).toMatch(
        env.includes('\0') ? /line 1: env contains a NUL character/ : /line 1: env: environment names are 1-63 characters/,
      );
    }
    expect((await database.sql`select count(*)::int as n from tasks t join task_suites s on s.id = t.suite_id where s.name = 'crafted'`)[0]!.n).toBe(0);
  });

  it('a valid env name is stored on the task', async () => {
    const op = await callerAs(database.db, 'operator');
    await op.tasks.import({ suite: 'named', text: task('py311') });
    expect((await op.tasks.list({ suite: 'named' }))[0]!.environmentName).toBe('py311');
  });

  it('saveSuite refuses a crafted environment name from any caller', async () => {
    const t = {
      externalId: 'x',
      language: 'python' as const,
      prompt: 'p',
      entryPoint: 'f',
      tests: { kind: 'humaneval' as const, check: 'def check(c): pass' },
      risk: 'routine' as const,
      environmentName: '../../..',
      split: 'train' as const,
      difficulty: null,
      demonstration: null,
    };
    await expect(saveSuite(database.db, { name: 'direct', source: 'test' }, [t], 'test')).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(RULE),
    });
  });
});
