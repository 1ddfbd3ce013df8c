import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { loginThrottle, workers } from '@/db/schema';
import { AUDIT_WINDOW_MS } from '@/server/auth/throttle';
import { appendAudit } from '@/server/audit/service';
import { freshDatabase, ownerConnection } from '@/test/database';
import { heartbeatWorker, registerWorker } from '@/workers/process/registration';
import { auditAnchorCheck, lostWorkersCheck, maintenanceChecks, pruneEnvSessionsCheck, pruneWorkersCheck, runChecks } from './checks';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const capacity = { cpus: 1, memoryMb: 1024, gpuCount: 0, gpuMemoryMb: 0, diskMb: 1024 };
const statuses = async () =>
  Object.fromEntries(
    ((await database.db.select({ id: workers.id, status: workers.status }).from(workers)) as { id: string; status: string }[]).map((w) => [w.id, w.status]),
  );

describe('maintenance checks', () => {
  it('marks silent workers lost, revives one that heartbeats again, and forgets long-ended ones', async () => {
    const fresh = await registerWorker(database.db, 'jobs', capacity);
    const silent = await registerWorker(database.db, 'jobs', capacity);
    const ancient = await registerWorker(database.db, 'jobs', capacity);
    await database.db.execute(sql`update workers set heartbeat_at = now() - interval '1 minute' where id = ${silent}`);
    await database.db.execute(sql`update workers set status = 'stopped', stopped_at = now() - interval '30 days' where id = ${ancient}`);

    const lines: string[] = [];
    const stop = new AbortController();
    const loop = runChecks(database.db, [lostWorkersCheck(10_000), pruneWorkersCheck(7 * 86_400_000, 1_000)], stop.signal, (l) => lines.push(l));
    await new Promise((r) => setTimeout(r, 300));
    stop.abort();
    await loop;

    const s = await statuses();
    expect(s[fresh]).toBe('running');
    expect(s[silent]).toBe('lost');
    expect(s[ancient]).toBeUndefined();
    expect(lines.some((l) => l.startsWith('lost-workers: marked lost: ') && l.includes(silent))).toBe(true);
    expect(lines.some((l) => l.startsWith('prune-workers: forgot 1'))).toBe(true);

    // A lost worker that was only stalled comes back on its next heartbeat.
    expect(await heartbeatWorker(database.db, silent)).toBe(true);
    expect((await statuses())[silent]).toBe('running');
  });

  it('anchors the audit head outside the database, and reports tampering instead of anchoring over it', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-anchor-check-')), 'audit-anchors.log');
    const check = auditAnchorCheck(file);
    await appendAudit(database.db, { actor: 'test', action: 'anchored', targetType: 'x' });
    expect(await check.run(database.db)).toBeUndefined();
    const lines = () => fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines()).toHaveLength(1);
    await check.run(database.db); // nothing new: no new line
    expect(lines()).toHaveLength(1);
    await ownerConnection(database, { max: 1 }).sql`truncate audit_log`;
    await appendAudit(database.db, { actor: 'test', action: 'after-truncate', targetType: 'x' });
    expect(await check.run(database.db)).toMatch(/^AUDIT LOG TAMPERED: row \d+ .* is gone/);
    expect(lines()).toHaveLength(1);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('forgets step-API sessions that ended over a week ago, with their requests; keeps recent and open ones', async () => {
    const [suite] = await database.db.execute<{ id: string }>(
      sql`insert into task_suites (name, description, source) values ('s-prune', '', 'import') returning id`,
    );
    const [task] = await database.db.execute<{ id: string }>(
      sql`insert into tasks (suite_id, external_id, language, prompt, entry_point, tests) values (${suite!.id}, 't', 'python', 'p', 'f', '[]'::jsonb) returning id`,
    );
    const session = async (ended: string | null) => {
      const [row] = await database.db.execute<{ id: string }>(sql`
        insert into env_sessions (task_id, status, runtime, tier, tools, tool_call_format, tool_output_bytes, idle_timeout_s, actor, ended_at)
        values (${task!.id}, ${ended ? 'closed' : 'ready'}, 'bwrap', 'standard', '[]'::jsonb, 'hermes', 1024, 600, 'user:x',
                ${ended === null ? null : sql.raw(`now() - interval '${ended}'`)}) returning id`);
      await database.db.execute(sql`insert into env_session_requests (session_id, seq, request) values (${row!.id}, 1, '{"kind":"close"}'::jsonb)`);
      return row!.id;
    };
    const old = await session('8 days');
    const recent = await session('1 hour');
    const open = await session(null);
    expect(await pruneEnvSessionsCheck().run(database.db)).toMatch(/forgot 1 step-API session/);
    const left = await database.db.execute<{ id: string }>(sql`select id from env_sessions order by created_at`);
    expect(left.map((r) => r.id).sort()).toEqual([recent, open].sort());
    const requests = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from env_session_requests where session_id = ${old}`);
    expect(requests[0]!.n).toBe(0);
  });

  it('summarises a closed failed-login window without waiting for the next login attempt', async () => {
    // A source whose 10-minute audit window closed a minute ago: 4 failures, 2 throttled tries.
    const start = new Date(Date.now() - AUDIT_WINDOW_MS - 60_000);
    await database.db.insert(loginThrottle).values({
      key: 'addr:192.0.2.44',
      failures: 4,
      expiresAt: new Date(Date.now() + 600_000),
      auditWindowStart: start,
      auditFailures: 4,
      auditThrottled: 2,
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-maintenance-'));
    // The maintenance worker's own list of checks (workers/maintenance/main.ts), on its loop.
    const stop = new AbortController();
    const loop = runChecks(database.db, maintenanceChecks({ workerStaleMs: 60_000, anchorFile: path.join(dir, 'audit-anchors.log') }), stop.signal, () => {});
    await new Promise((r) => setTimeout(r, 500));
    stop.abort();
    await loop;
    fs.rmSync(dir, { recursive: true, force: true });

    const rows = await database.sql<{ details: Record<string, unknown> }[]>`select details from audit_log where action = 'auth.login_failed'`;
    expect(rows.map((r) => r.details)).toEqual([
      expect.objectContaining({ source: '192.0.2.44', summary: true, count: 6, failures: 4, throttled: 2, from: start.toISOString() }),
    ]);
    const [row] = await database.db.select().from(loginThrottle);
    expect(row).toMatchObject({ key: 'addr:192.0.2.44', auditWindowStart: null, failures: 4 });
  });
});
