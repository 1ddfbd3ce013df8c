import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import type { Database } from '@/db/client';
import { logRecords } from '@/db/schema';
import { runCrucible } from '@/test/cli';
import { freshDatabase } from '@/test/database';
import { seedRun } from '@/test/seed';

let database: Database;
const crucible = (args: string[]) => runCrucible(args, { DATABASE_URL: database.url });
const children: ReturnType<typeof spawn>[] = [];

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('crucible logs', () => {
  it('--run lists that run’s records from every host, oldest first; --level, --grep, --limit and --json', async () => {
    const { run } = await seedRun(database.db);
    const { run: other } = await seedRun(database.db);
    const t = (s: number) => new Date(Date.now() - 60_000 + s * 1000);
    const base = { process: 'jobs', pid: 1, fields: {} };
    await database.db.insert(logRecords).values([
      { ...base, at: t(1), level: 'info', msg: 'episode started', host: 'host-a', workerId: 'jobs-a', runId: run.id, fields: { stage: 'episode' } },
      {
        ...base,
        at: t(2),
        level: 'info',
        msg: 'tool bash',
        host: 'host-b',
        workerId: 'jobs-b',
        runId: run.id,
        jobId: 5,
        fields: { tool: 'bash', exitCode: 1 },
      },
      { ...base, at: t(3), level: 'error', msg: 'grading failed', host: 'host-b', workerId: 'jobs-b', runId: run.id },
      { ...base, at: t(4), level: 'info', msg: 'not this run', host: 'host-a', workerId: 'jobs-a', runId: other.id },
    ]);

    const text = await crucible(['logs', '--run', run.id]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/ INFO  host-a\/jobs-a run=\w{8} episode started stage=episode$/);
    expect(lines[1]).toMatch(/ INFO  host-b\/jobs-b run=\w{8} job=5 tool bash tool=bash exitCode=1$/);
    expect(lines[2]).toMatch(/ ERROR host-b\/jobs-b .*grading failed$/);

    const json = await crucible(['logs', '--run', run.id, '--json']);
    const records = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; host: string; runId: string });
    expect(records.map((r) => [r.host, r.msg])).toEqual([
      ['host-a', 'episode started'],
      ['host-b', 'tool bash'],
      ['host-b', 'grading failed'],
    ]);
    expect(new Set(records.map((r) => r.runId))).toEqual(new Set([run.id]));

    const warn = await crucible(['logs', '--run', run.id, '--level', 'warn', '--json']);
    expect(
      warn.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).msg),
    ).toEqual(['grading failed']);
    const grep = await crucible(['logs', '--grep', 'BASH', '--json']);
    expect(
      grep.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).msg),
    ).toEqual(['tool bash']);
    const limited = await crucible(['logs', '--run', run.id, '--limit', '2', '--json']);
    expect(
      limited.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).msg),
    ).toEqual(['tool bash', 'grading failed']);

    const bad = await crucible(['logs', '--level', 'loud']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/level/);
    const help = await crucible(['--help']);
    expect(help.stdout).toMatch(/logs +search the logs of every host/);
  });

  it('--follow prints records as they arrive until Ctrl-C', async () => {
    const { run } = await seedRun(database.db);
    const base = { process: 'jobs', pid: 1, fields: {}, host: 'host-a', runId: run.id };
    await database.db.insert(logRecords).values({ ...base, at: new Date(), level: 'info', msg: 'before follow' });
    const child = spawn('node', [path.resolve('scripts/crucible.mjs'), 'logs', '--run', run.id, '--follow', '--poll-ms', '200'], {
      env: childEnv({ DATABASE_URL: database.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const until = async (what: string, probe: () => boolean) => {
      const end = Date.now() + 30_000;
      while (!probe()) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`waiting for ${what}; stdout:\n${out}\nstderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until('the first record', () => out.includes('before follow'));
    await database.db.insert(logRecords).values([
      { ...base, at: new Date(), level: 'warn', msg: 'arrived later 1' },
      { ...base, runId: null, at: new Date(), level: 'warn', msg: 'another run' },
      { ...base, at: new Date(), level: 'info', msg: 'arrived later 2' },
    ]);
    await until('the new records', () => out.includes('arrived later 2'));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const msgs = out
      .trim()
      .split('\n')
      .map((l) => l.replace(/^.* run=\w{8} /, ''));
    expect(msgs).toEqual(['before follow', 'arrived later 1', 'arrived later 2']);
  });
});
