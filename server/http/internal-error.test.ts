import superjson from 'superjson';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { trpcRoute } from './trpc-route';

// The handlers' settings, passed in (defaults), not read from the environment.
const httpSettings = parseSettings({});

let database: Database;
let trpc: (req: Request) => Promise<Response>;
beforeAll(async () => {
  database = await freshDatabase();
  trpc = trpcRoute(async () => database.db, httpSettings);
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
});
afterEach(() => {
  vi.restoreAllMocks();
});

type ErrorBody = { error: { json: { message: string; data: Record<string, unknown> } } };

async function call(path: string, input: unknown, headers: Record<string, string> = {}) {
  const res = await trpc(
    new Request(`http://localhost/api/trpc/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(superjson.serialize(input)),
    }),
  );
  return { res, text: await res.text() };
}

describe('errors never leak internals', () => {
  it('a database error reaches the client as an id only; the server log has the SQL under that id', async () => {
    const login = await call('auth.login', { username: 'olga', password: 'operator-password' });
    const cookie = login.res.headers.get('set-cookie')!.split(';')[0]!;
    // Capture the server log (console.error is where route errors go; a spy, not a stub of our code).
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(' '));
    });
    // Each factor is within its zod bound but the product (episodes_total) overflows postgres'
    // integer: nothing maps that to a domain error, so postgres refuses the insert.
    const config = { groupSize: 256, tasksPerIteration: 10_000, iterations: 100_000 };
    const { res, text } = await call('runs.create', { name: 'twin-secret-name', config }, { cookie });
    expect(res.status).toBe(500);
    const body = JSON.parse(text) as ErrorBody;
    const id = /internal error \(id ([0-9a-f]{12})\); an admin can find the details in the server log/.exec(body.error.json.message)?.[1];
    expect(id, body.error.json.message).toBeDefined();
    expect(body.error.json.data).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', errorId: id });
    expect(body.error.json.data).not.toHaveProperty('stack');
    for (const leak of [/insert into/i, /\\"runs\\"/, /twin-secret-name/, /params/i, /out of range/i, /\.ts:\d+/, /at /]) expect(text).not.toMatch(leak);
    const entry = logged.find((l) => l.includes(`[error ${id}]`));
    expect(entry, logged.join('\n')).toBeDefined();
    expect(entry).toMatch(/insert into "runs"[\s\S]*twin-secret-name/i);
    expect(logged.filter((l) => l.includes(id!))).toHaveLength(1);
  });

  it('validation and domain messages reach the client unchanged, without a stack', async () => {
    const bad = await call('auth.login', { username: '', password: 'x' });
    const body = JSON.parse(bad.text) as ErrorBody;
    expect(bad.res.status).toBe(400);
    expect(body.error.json.message).toMatch(/username: enter your username/);
    expect(body.error.json.data).not.toHaveProperty('stack');
    const wrong = JSON.parse((await call('auth.login', { username: 'olga', password: 'nope' })).text) as ErrorBody;
    expect(wrong.error.json.message).toBe('Wrong username or password.');
  });
});
