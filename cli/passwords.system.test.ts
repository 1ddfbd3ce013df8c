import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import type { Database } from '@/db/client';
import { clientAddress } from '@/server/auth/client-address';
import { identify } from '@/server/auth/identity';
import { appRouter } from '@/server/routers';
import { freshDatabase } from '@/test/database';

let database: Database;
let url: string;
let close: () => void;

/** Run the real `crucible` binary against the test database, with `stdin` piped in. */
function crucible(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', ['scripts/crucible.mjs', ...args], { env: childEnv({ DATABASE_URL: database.url }), timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

beforeAll(async () => {
  database = await freshDatabase();
  const server = createHTTPServer({
    basePath: '/api/trpc/',
    router: appRouter,
    createContext: async ({ req }) => {
      const headers = new Headers(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])));
      return {
        db: database.db,
        user: await identify(database.db, headers),
        clientAddress: clientAddress(headers, { trustProxy: false, socketAddress: req.socket.remoteAddress }),
      };
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

const hashOf = async (username: string) => (await database.sql`select password_hash, must_change_password from users where username = ${username}`)[0]!;

describe('crucible users reset-password / account change-password', () => {
  it('help lists both commands', async () => {
    expect((await crucible(['users', '--help'])).stdout).toMatch(/reset-password\s+reset a password: prints a one-time password/);
    expect((await crucible(['account', '--help'])).stdout).toMatch(/change-password\s+change the token owner's password/);
    expect((await crucible(['--help'])).stdout).toMatch(/account\s+your own account/);
  });

  it('an admin resets a password locally; the user changes it over the API with their token', async () => {
    expect((await crucible(['users', 'add', 'carol', '--role', 'operator', '--password', 'carols-first-password'])).code).toBe(0);
    const token = JSON.parse((await crucible(['tokens', 'create', '--name', 'carol cli', '--user', 'carol', '--json'])).stdout).token as string;

    // --keep-tokens: carol changes her password with the token she already had
    const reset = await crucible(['users', 'reset-password', 'carol', '--keep-tokens']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/API tokens kept/);
    const oneTime = /one-time password \(shown once\): (\S+)/.exec(reset.stdout)![1]!;
    expect((await hashOf('carol')).must_change_password).toBe(true);
    const audit = await database.sql`select actor, details from audit_log where action = 'user.password_reset' order by seq desc limit 1`;
    expect(audit[0]!.actor).toMatch(/^cli:/);

    const wrong = await crucible(['account', 'change-password', '--url', url, '--token', token], 'not-the-password\nwhatever-new-password\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/current password is wrong/);

    const changed = await crucible(['account', 'change-password', '--url', url, '--token', token, '--json'], `${oneTime}\ncarols-own-password\n`);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ ok: true });
    expect((await hashOf('carol')).must_change_password).toBe(false);
    const events = await database.sql`select action from audit_log where action in ('user.password_reset', 'auth.password_changed') order by seq`;
    expect(events.map((e) => e.action)).toEqual(['user.password_reset', 'auth.password_changed']);
  });

  it('a reset revokes the API tokens by default, and says how many', async () => {
    expect((await crucible(['users', 'add', 'dave', '--role', 'operator', '--password', 'daves-first-password'])).code).toBe(0);
    const token = JSON.parse((await crucible(['tokens', 'create', '--name', 'dave cli', '--user', 'dave', '--json'])).stdout).token as string;
    expect((await crucible(['runs', 'list', '--url', url, '--token', token, '--json'])).code).toBe(0);
    const reset = await crucible(['users', 'reset-password', 'dave']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/1 API token\(s\) revoked/);
    const after = await crucible(['runs', 'list', '--url', url, '--token', token, '--json']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/token|unauthori[sz]ed|sign in/i);
  });

  it('change-password without --url says what to do instead', async () => {
    const r = await crucible(['account', 'change-password'], 'a\nb\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pass --url and --token.*crucible users reset-password NAME/s);
  });
});
