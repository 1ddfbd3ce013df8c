import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { createToken } from '@/server/tokens/service';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { taskImportRoute } from './task-import-route';
import { trpcRoute } from './trpc-route';

// A small import limit keeps the over-limit upload cheap. Passed to the handlers, not set in the environment.
const httpSettings = parseSettings({ CRUCIBLE_MAX_IMPORT_BYTES: String(3 * 1024 * 1024) });

const MiB = 1024 * 1024;

let database: Database;
let trpc: (req: Request) => Promise<Response>;
let upload: (req: Request) => Promise<Response>;
let cookie: string;
beforeAll(async () => {
  database = await freshDatabase();
  trpc = trpcRoute(async () => database.db, httpSettings);
  upload = taskImportRoute(async () => database.db, httpSettings);
  await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
  await createUser(database.db, { username: 'vic', password: 'viewer-password', role: 'viewer' }, 'test');
  cookie = await login('olga', 'operator-password');
});

async function login(username: string, password: string) {
  const res = await trpc(
    new Request('http://localhost/api/trpc/auth.login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(superjson.serialize({ username, password })),
    }),
  );
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** A body that would produce `total` bytes, counting what was pulled and noticing cancellation. */
function hugeBody(total: number, chunkSize = 64 * 1024) {
  const chunk = new Uint8Array(chunkSize).fill(0x20); // spaces: a valid start of JSON or JSONL
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (seen.pulled >= total) return c.close();
      seen.pulled += chunk.byteLength;
      c.enqueue(chunk);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const post = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', headers: { cookie, ...headers }, body, duplex: 'half' } as RequestInit);

const taskLine = (i: number) =>
  JSON.stringify({
    id: `t${i}`,
    language: 'python',
    prompt: `def f${i}(x):\n    """${'pad '.repeat(1500)}"""\n`,
    entryPoint: `f${i}`,
    tests: [{ input: [1], expected: 2 }],
  });

describe('request size limits', () => {
  it('a 2 MB JSON body to /api/trpc is refused with 413 and a message saying what to do', async () => {
    const body = JSON.stringify(superjson.serialize({ name: 'x'.repeat(2 * MiB), config: {} }));
    const res = await trpc(post('http://localhost/api/trpc/runs.create', body, { 'content-type': 'application/json' }));
    expect(res.status).toBe(413);
    const json = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
    expect(json.error.json.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect(json.error.json.message).toMatch(/larger than 1 MiB \(CRUCIBLE_MAX_BODY_BYTES\).*crucible tasks import/);
    expect((await database.sql`select count(*)::int as n from runs`)[0]!.n).toBe(0);
  });

  it('a chunked 200 MB body is cancelled after little more than the limit, never buffered', async () => {
    const { stream, seen } = hugeBody(200 * MiB);
    const res = await trpc(post('http://localhost/api/trpc/runs.create', stream, { 'content-type': 'application/json' }));
    expect(res.status).toBe(413);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(1 * MiB + 512 * 1024);
  });

  it('a large task file (over the JSON limit) imports through the streaming upload route', async () => {
    const text = Array.from({ length: 400 }, (_, i) => taskLine(i)).join('\n');
    expect(text.length).toBeGreaterThan(2 * MiB);
    const res = await upload(post('http://localhost/api/tasks/import?suite=big&format=crucible', text));
    const json = (await res.json()) as { imported: number; suite: { name: string }; error?: { message: string } };
    expect(res.status, json.error?.message).toBe(200);
    expect(json).toMatchObject({ imported: 400, suite: { name: 'big' } });
    const [audit] = await database.sql`select actor, details from audit_log where action = 'tasks.import'`;
    expect(audit).toMatchObject({ actor: 'user:olga', details: { name: 'big', tasks: 400 } });
  });

  it('an upload over CRUCIBLE_MAX_IMPORT_BYTES is refused with 413 after reading little more than the limit', async () => {
    const { stream, seen } = hugeBody(200 * MiB);
    const res = await upload(post('http://localhost/api/tasks/import?suite=huge', stream));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/larger than 3 MiB \(CRUCIBLE_MAX_IMPORT_BYTES\)/);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(3 * MiB + 512 * 1024);
    const declared = await upload(post('http://localhost/api/tasks/import?suite=huge', 'x'.repeat(4 * MiB), { 'content-length': String(4 * MiB) }));
    expect(declared.status).toBe(413);
    expect((await database.sql`select count(*)::int as n from task_suites where name = 'huge'`)[0]!.n).toBe(0);
  });

  it('the upload route refuses anonymous callers and viewers before reading the body, and names bad parameters', async () => {
    const { stream, seen } = hugeBody(200 * MiB);
    const anon = await upload(new Request('http://localhost/api/tasks/import?suite=x', { method: 'POST', body: stream, duplex: 'half' } as RequestInit));
    expect(anon.status).toBe(401);
    expect(seen.pulled).toBeLessThan(MiB);
    const viewer = await upload(post('http://localhost/api/tasks/import?suite=x', taskLine(1), { cookie: await login('vic', 'viewer-password') }));
    expect(viewer.status).toBe(403);
    expect(((await viewer.json()) as { error: { message: string } }).error.message).toMatch(/viewer.*operator/);
    const noSuite = await upload(post('http://localhost/api/tasks/import', taskLine(1)));
    expect(noSuite.status).toBe(400);
    expect(((await noSuite.json()) as { error: { message: string } }).error.message).toMatch(/\?suite=NAME/);
    const badLine = await upload(post('http://localhost/api/tasks/import?suite=bad', '{not json'));
    expect(badLine.status).toBe(400);
    expect(((await badLine.json()) as { error: { message: string } }).error.message).toMatch(/line 1/);
  });
});

describe('crucible tasks import --url', () => {
  let url: string;
  let server: http.Server;
  beforeAll(async () => {
    // A plain Node server in front of the real route handler, as Next puts one in front of it.
    server = http.createServer((req, res) => {
      const body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body,
        duplex: 'half',
      } as RequestInit);
      void upload(request).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  it('uploads a file larger than the JSON body limit through the streaming route', async () => {
    const { token } = await createToken(database.db, 'olga', 'cli', 'test');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-import-')), 'cli-big.jsonl');
    fs.writeFileSync(file, Array.from({ length: 400 }, (_, i) => taskLine(i)).join('\n'));
    expect(fs.statSync(file).size).toBeGreaterThan(2 * MiB);
    const { stdout } = await promisify(execFile)('node', ['scripts/crucible.mjs', 'tasks', 'import', file, '--json', '--url', url, '--token', token], {
      timeout: 60_000,
    }).finally(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
    expect(JSON.parse(stdout)).toMatchObject({ suite: 'cli-big', imported: 400 });
    const [audit] = await database.sql`select actor from audit_log where action = 'tasks.import' and details->>'name' = 'cli-big'`;
    expect(audit?.actor).toBe('token:olga');
  });
});
