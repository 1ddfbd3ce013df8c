import superjson from 'superjson';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { trpcRoute } from './trpc-route';

// NUL characters (issue 31 §5): PostgreSQL cannot store or compare U+0000, so one in a search
// field or a task file reached the query and came back as an opaque 500. Through the real
// HTTP route and a real database, each is a 400 that names the field (and the line).

let database: Database;
let trpc: (req: Request) => Promise<Response>;
let cookie: string;

type Body = { error?: { json: { message: string; data: { httpStatus: number; errorId: string | null } } } };

async function call(path: string, input: unknown, method: 'GET' | 'POST' = 'POST') {
  const body = JSON.stringify(superjson.serialize(input));
  const res = await trpc(
    method === 'GET'
      ? new Request(`http://localhost/api/trpc/${path}?input=${encodeURIComponent(body)}`, { headers: { cookie } })
      : new Request(`http://localhost/api/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body }),
  );
  return { status: res.status, body: (await res.json()) as Body };
}

beforeAll(async () => {
  database = await freshDatabase();
  trpc = trpcRoute(async () => database.db, parseSettings({}));
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'admin' }, 'test');
  const login = await trpc(
    new Request('http://localhost/api/trpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(superjson.serialize({ username: 'olga', password: 'operator-password' })),
    }),
  );
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
});

describe('NUL characters in input are a 400 naming the field, not a 500', () => {
  it('search fields (runs, audit filters), in a GET query', async () => {
    for (const [path, input, field] of [
      ['runs.list', { search: 'abc\u0000def' }, 'search'],
      ['audit.list', { actor: 'user:\u0000' }, 'actor'],
    ] as const) {
      const r = await call(path, input, 'GET');
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error!.json.message).toBe(
        `invalid input: ${field} contains a NUL character (\\0 or \\u0000), which cannot be stored or searched; remove it`,
      );
      expect(r.body.error!.json.data.errorId).toBeNull();
    }
  });

  it('a run name or config value nested in the input', async () => {
    const r = await call('runs.create', { name: 'ok', config: { suite: 'x\u0000' } });
    expect(r.status).toBe(400);
    expect(r.body.error!.json.message).toMatch(/^invalid input: config\.suite contains a NUL character/);
  });

  it('task files: an escaped \\u0000 in a line names the line and the field; a raw NUL byte names the line', async () => {
    const escaped = [
      JSON.stringify({ id: 'a', prompt: 'ok', tests: [{ input: '1', expected: '1' }] }),
      JSON.stringify({ id: 'b', prompt: 'bad \u0000 prompt', tests: [{ input: '1', expected: '1' }] }),
    ].join('\n');
    const r = await call('tasks.import', { suite: 'nul-suite', text: escaped });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error!.json.message).toMatch(/line 2: prompt contains a NUL character/);
    const repo = JSON.stringify({
      id: 'r',
      language: 'python',
      problem_statement: 'fix',
      workspace: { files: { 'blob.bin': 'a\u0000b' } },
      FAIL_TO_PASS: ['t.py::t'],
    });
    const rr = await call('tasks.import', { suite: 'nul-repo', format: 'crucible-repo', text: repo });
    expect(rr.status, JSON.stringify(rr.body)).toBe(400);
    expect(rr.body.error!.json.message).toMatch(/line 1: workspace\.files\.blob\.bin contains a NUL character .*\{"base64": …\}/);
    const raw = await call('tasks.import', { suite: 'nul-raw', text: `${JSON.stringify({ id: 'a', prompt: 'ok', tests: [] })}\n{"id": "b\u0000"}` });
    expect(raw.status).toBe(400);
    expect(raw.body.error!.json.message).toMatch(/^invalid input: text \(line 2\) contains a NUL character/);
  });
});
