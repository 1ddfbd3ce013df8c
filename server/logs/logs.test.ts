import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { logRecords } from '@/db/schema';
import { anonymousCaller, callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { seedEpisode, seedRun } from '@/test/seed';
import { logRetentionCheck } from '@/workers/maintenance/checks';
import { createProcessLogger, withContext } from './logger';
import { episodeTimeline, listLogs, pruneLogs } from './service';
import { LogShipper, recordOfLine } from './shipper';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const logSettings = (o: Record<string, string> = {}) => parseSettings({ CRUCIBLE_LOG_FLUSH_MS: '50', CRUCIBLE_NODE: 'node-a', ...o });
/** A process logger whose stdout lines are kept in `lines`. */
function testLogger(processName: string, o: Record<string, string> = {}) {
  const lines: string[] = [];
  const pl = createProcessLogger({ process: processName, settings: logSettings(o), stdout: { write: (l: string) => void lines.push(l) } });
  return { ...pl, lines };
}
const clear = () => database.db.delete(logRecords);

describe('the process logger', () => {
  it('writes JSON lines to stdout and ships records at the ship level and above, with their ids, to log_records', async () => {
    await clear();
    const { run, tasks } = await seedRun(database.db);
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 1);
    const pl = testLogger('jobs', { CRUCIBLE_LOG_LEVEL: 'debug' });
    pl.logger.debug('before the database: not shipped (below info)');
    pl.logger.info('before the database: held, then shipped');
    pl.attach(database.db);
    pl.logger.setBindings({ workerId: 'jobs-w1' });
    const jl = withContext(pl.logger, { run: run.id, episode: ep.id, job: 42 });
    jl.info({ tool: 'bash', durationMs: 12, exitCode: 0 }, 'tool call bash');
    jl.error({ err: new Error('boom') }, 'episode failed');
    // ids that are not what their columns hold stay among the fields
    pl.logger.child({ run: 'not-a-uuid', job: 'x' }).warn('odd ids');
    pl.logger.info({ stage: 'tool', error: 'bad\u0000output' }, 'a NUL \u0000 here');
    await pl.close();

    // stdout: one JSON object a line, level by name, the base fields on each
    const out = pl.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out.map((o) => o.msg)).toContain('before the database: not shipped (below info)');
    expect(out.find((o) => o.msg === 'tool call bash')).toMatchObject({
      level: 'info',
      host: 'node-a',
      process: 'jobs',
      pid: process.pid,
      workerId: 'jobs-w1',
      run: run.id,
      job: 42,
    });

    const rows = await database.db.select().from(logRecords).orderBy(logRecords.id);
    expect(rows.map((r) => r.msg)).toEqual(['before the database: held, then shipped', 'tool call bash', 'episode failed', 'odd ids', 'a NUL \uFFFD here']);
    expect(rows[0]).toMatchObject({ level: 'info', host: 'node-a', process: 'jobs', pid: process.pid, workerId: null, runId: null });
    expect(rows[1]).toMatchObject({
      level: 'info',
      workerId: 'jobs-w1',
      runId: run.id,
      episodeId: ep.id,
      jobId: 42,
      fields: { tool: 'bash', durationMs: 12, exitCode: 0 },
    });
    expect(rows[2]!.level).toBe('error');
    expect(rows[2]!.fields.err).toMatchObject({ type: 'Error', message: 'boom' });
    expect(rows[3]).toMatchObject({ level: 'warn', runId: null, jobId: null, fields: { run: 'not-a-uuid', job: 'x' } });
    // NUL in a field (an agent's output) is replaced too: PostgreSQL would refuse the batch
    expect(rows[4]!.fields).toMatchObject({ stage: 'tool', error: 'bad\uFFFDoutput' });
  });

  it('ships nothing with CRUCIBLE_LOG_SHIP_LEVEL=off, and only warn and above with warn', async () => {
    await clear();
    const off = testLogger('web', { CRUCIBLE_LOG_SHIP_LEVEL: 'off' });
    off.attach(database.db);
    off.logger.error('not shipped');
    await off.close();
    expect(off.lines).toHaveLength(1);
    const warn = testLogger('web', { CRUCIBLE_LOG_SHIP_LEVEL: 'warn' });
    warn.attach(database.db);
    warn.logger.info('not shipped');
    warn.logger.warn('shipped');
    await warn.close();
    expect((await database.db.select().from(logRecords)).map((r) => r.msg)).toEqual(['shipped']);
  });

  it('keeps a bounded buffer: the oldest records are dropped and one record says how many', async () => {
    await clear();
    const shipper = new LogShipper({ level: 'info', flushMs: 10_000, maxBuffer: 5, base: { host: 'h', process: 'jobs', pid: 1 } });
    for (let i = 0; i < 12; i++) shipper.write(JSON.stringify({ level: 'info', time: Date.now(), host: 'h', process: 'jobs', pid: 1, msg: `line ${i}` }));
    expect(shipper.pending).toEqual({ buffered: 5, dropped: 7 });
    shipper.attach(database.db);
    await shipper.stop();
    const rows = await database.db.select().from(logRecords).orderBy(logRecords.id);
    expect(rows.map((r) => r.msg)).toEqual([
      'dropped 7 log record(s): the buffer of 5 was full (database slow or unreachable)',
      'line 7',
      'line 8',
      'line 9',
      'line 10',
      'line 11',
    ]);
    expect(rows[0]).toMatchObject({ level: 'warn', fields: { dropped: 7 } });
    expect(recordOfLine('not json')).toBeNull();
  });
});

describe('searching log records', () => {
  it('filters by run, episode, job, worker, host, minimum level, text and time; pages newest first and follows after an id', async () => {
    await clear();
    const { run, tasks } = await seedRun(database.db);
    const { run: other } = await seedRun(database.db);
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 1);
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const base = { process: 'jobs', pid: 1, fields: {} };
    await database.db.insert(logRecords).values([
      { ...base, at: t(1), level: 'debug', msg: 'sampling', host: 'host-a', workerId: 'w-a', runId: run.id, episodeId: ep.id },
      { ...base, at: t(2), level: 'info', msg: 'tool call bash', host: 'host-a', workerId: 'w-a', runId: run.id, episodeId: ep.id, fields: { tool: 'bash' } },
      { ...base, at: t(3), level: 'warn', msg: 'slow sandbox', host: 'host-b', workerId: 'w-b', runId: run.id, jobId: 7 },
      { ...base, at: t(4), level: 'error', msg: 'grading failed', host: 'host-b', workerId: 'w-b', runId: run.id, episodeId: ep.id },
      { ...base, at: t(5), level: 'info', msg: 'another run 100%', host: 'host-a', workerId: 'w-a', runId: other.id },
    ]);
    const msgs = async (q: Parameters<typeof listLogs>[1]) => (await listLogs(database.db, q)).items.map((r) => r.msg);
    expect(await msgs({ run: run.id })).toEqual(['grading failed', 'slow sandbox', 'tool call bash', 'sampling']);
    expect(await msgs({ episode: ep.id })).toEqual(['grading failed', 'tool call bash', 'sampling']);
    expect(await msgs({ job: 7 })).toEqual(['slow sandbox']);
    expect(await msgs({ worker: 'w-b' })).toEqual(['grading failed', 'slow sandbox']);
    expect(await msgs({ host: 'host-a', run: run.id })).toEqual(['tool call bash', 'sampling']);
    expect(await msgs({ run: run.id, level: 'warn' })).toEqual(['grading failed', 'slow sandbox']);
    expect(await msgs({ level: 'error' })).toEqual(['grading failed']);
    // text: the message or a field's value, any case; % is literal
    expect(await msgs({ text: 'BASH' })).toEqual(['tool call bash']);
    expect(await msgs({ text: '100%' })).toEqual(['another run 100%']);
    expect(await msgs({ text: '0%' })).toEqual(['another run 100%']);
    expect(await msgs({ from: t(2).toISOString(), to: t(3).toISOString() })).toEqual(['slow sandbox', 'tool call bash']);

    // keyset pages, newest first
    const p1 = await listLogs(database.db, { run: run.id, limit: 3 });
    expect(p1.items.map((r) => r.msg)).toEqual(['grading failed', 'slow sandbox', 'tool call bash']);
    expect(p1.nextBefore).toBe(p1.items[2]!.id);
    const p2 = await listLogs(database.db, { run: run.id, limit: 3, before: p1.nextBefore! });
    expect(p2.items.map((r) => r.msg)).toEqual(['sampling']);
    expect(p2.nextBefore).toBeNull();

    // follow: records after the newest seen, oldest first; the cursor stays when nothing is new
    const latest = p1.latest;
    expect(await listLogs(database.db, { run: run.id, after: latest })).toMatchObject({ items: [], latest });
    await database.db.insert(logRecords).values([
      { ...base, at: t(6), level: 'info', msg: 'commit', host: 'host-a', runId: run.id },
      { ...base, at: t(7), level: 'info', msg: 'other run', host: 'host-a', runId: other.id },
      { ...base, at: t(8), level: 'info', msg: 'learner step', host: 'host-b', runId: run.id },
    ]);
    const f = await listLogs(database.db, { run: run.id, after: latest });
    expect(f.items.map((r) => r.msg)).toEqual(['commit', 'learner step']);
    expect(f.latest).toBe(f.items[1]!.id);

    // bad input is refused with the field named
    await expect(listLogs(database.db, { run: 'nope' })).rejects.toThrow(/run must be a run id/);
    await expect(listLogs(database.db, { before: 5, after: 1 })).rejects.toThrow(/not both/);
  });

  it("builds an episode's timeline: its records and its iteration's learner step, offsets from the first", async () => {
    await clear();
    const { run, tasks } = await seedRun(database.db);
    const ep = await seedEpisode(database.db, run.id, tasks[0]!.id, 1, { iteration: 2 });
    const other = await seedEpisode(database.db, run.id, tasks[0]!.id, 1, { iteration: 2 });
    const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
    const base = { process: 'jobs', pid: 1, host: 'h', runId: run.id };
    await database.db.insert(logRecords).values([
      { ...base, at: t(0), level: 'info', msg: 'episode started', episodeId: ep.id, fields: { stage: 'episode' } },
      { ...base, at: t(1500), level: 'info', msg: 'tool call bash', episodeId: ep.id, fields: { stage: 'tool', tool: 'bash', durationMs: 1400, exitCode: 1 } },
      { ...base, at: t(1600), level: 'info', msg: 'someone else', episodeId: other.id },
      { ...base, at: t(2000), level: 'info', msg: 'graded', episodeId: ep.id, fields: { stage: 'grade', reward: 0.5 } },
      { ...base, at: t(9000), level: 'info', msg: 'learner step (iteration 1)', fields: { stage: 'learner', iteration: 1 } },
      { ...base, at: t(9500), level: 'info', msg: 'learner step (iteration 2)', fields: { stage: 'learner', iteration: 2, steps: 4 } },
    ]);
    const tl = await episodeTimeline(database.db, ep.id);
    expect(tl.entries.map((e) => [e.offsetMs, e.msg])).toEqual([
      [0, 'episode started'],
      [1500, 'tool call bash'],
      [2000, 'graded'],
      [9500, 'learner step (iteration 2)'],
    ]);
    expect(tl.truncated).toBe(false);
    await expect(episodeTimeline(database.db, '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/no episode/);
  });

  it('lets every signed-in role read logs through the API, and nobody signed out', async () => {
    await clear();
    await database.db.insert(logRecords).values({ at: new Date(), level: 'info', msg: 'hello', host: 'h', process: 'web', pid: 1 });
    for (const role of ['viewer', 'operator', 'reviewer', 'admin'] as const) {
      const caller = await callerAs(database.db, role);
      expect((await caller.logs.list({ text: 'hello' })).items.map((r) => r.msg)).toEqual(['hello']);
    }
    await expect(anonymousCaller(database.db).logs.list({})).rejects.toThrow();
  });
});

describe('retention and the size cap', () => {
  it('deletes records past the retention, then all but the newest maxRows (the maintenance check)', async () => {
    await clear();
    const now = Date.now();
    const day = 86_400_000;
    const base = { level: 'info' as const, host: 'h', process: 'jobs', pid: 1 };
    await database.db
      .insert(logRecords)
      .values([
        { ...base, at: new Date(now - 10 * day), msg: 'old 1' },
        { ...base, at: new Date(now - 8 * day), msg: 'old 2' },
        ...Array.from({ length: 6 }, (_, i) => ({ ...base, at: new Date(now - (6 - i) * 1000), msg: `new ${i}` })),
      ]);
    const check = logRetentionCheck({ retentionMs: 7 * day, maxRows: 4 });
    expect(await check.run(database.db)).toBe('deleted log records: 2 older than 7 day(s), 2 over the cap of 4');
    expect((await database.db.select().from(logRecords).orderBy(logRecords.id)).map((r) => r.msg)).toEqual(['new 2', 'new 3', 'new 4', 'new 5']);
    expect(await check.run(database.db)).toBeUndefined();
    // in batches: more rows than one batch still all go
    expect(await pruneLogs(database.db, { retentionMs: 7 * day, maxRows: 1, batch: 2 })).toEqual({ aged: 0, capped: 3 });
    const [{ n }] = (await database.db.execute(sql`select count(*)::int as n from log_records`)) as unknown as [{ n: number }];
    expect(n).toBe(1);
  });
});
