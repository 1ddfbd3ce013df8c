import { readdirSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, environments, sandboxes } from '@/db/schema';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { verifyAudit } from '@/server/audit/service';
import { setQuarantine } from '@/server/reviews/environments';
import { recordEnvironment, recordVerification } from '@/server/environments/registry';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import { verifyEnvironmentFull } from '../env/env-store';
import { QuotaLedger } from '../limits/quota';
import { testManager } from '../test-support';
import { limitsSchema } from '../types';

const small = { memoryMb: 128, diskMb: 16, cpus: 0.5, timeoutMs: 5000 };

describe('sandbox manager: warm pool, quotas, audit', () => {
  let database: Database;
  let t: ReturnType<typeof testManager>;
  beforeAll(async () => {
    database = await freshDatabase();
    t = testManager('manager', { records: sandboxRecords(database.db), actor: 'test', maxIdlePerKey: 2, idleTtlMs: 60_000, capacity: { cpus: 4, memoryMb: 2048, diskMb: 1000 } });
  });
  afterAll(async () => t?.cleanup());

  it('reuses a warm sandbox after a reset: processes killed, scratch wiped, near-instant acquire', async () => {
    const { manager } = t;
    const a = await manager.acquire({ limits: small });
    a.putFile('/work/hello.txt', 'hi');
    const r = await a.exec(['sh', '-c', 'cat hello.txt; echo left > /tmp/left; (sleep 30 &) ; echo ok']);
    expect(r.stdout).toBe('hiok\n');
    await manager.release(a);
    // median of a few (one may include the 1.5 s-cached quarantine lookup on a loaded host)
    const times: number[] = [];
    let b = a;
    for (let i = 0; i < 5; i++) {
      if (i) await manager.release(b);
      const t0 = performance.now();
      b = await manager.acquire({ limits: small });
      times.push(performance.now() - t0);
      expect(b).toBe(a); // same sandbox, from the pool
    }
    expect(times.sort((x, y) => x - y)[2]).toBeLessThan(5);
    // only the warm sandbox's own supervisor (bwrap and its PID 1) is left: none of the command's processes
    const resident = b.residentPids();
    expect(resident.length).toBe(2);
    expect(b.cgroup.pids().filter((p) => !resident.includes(p))).toEqual([]);
    const r2 = await b.exec(['sh', '-c', 'ls -A /work /tmp']);
    expect(r2.stdout).toBe('/tmp:\n\n/work:\n');
    await manager.release(b);
  });

  it('grows under concurrent demand and shrinks when idle, leaving no directories behind', async () => {
    const { manager, dataDir } = t;
    const held = await Promise.all([1, 2, 3].map(() => manager.acquire({ limits: small })));
    expect(new Set(held).size).toBe(3);
    const results = await Promise.all(held.map((sb, i) => sb.exec(['sh', '-c', `echo ${i}`])));
    expect(results.map((r) => r.stdout)).toEqual(['0\n', '1\n', '2\n']);
    for (const sb of held) await manager.release(sb);
    expect(manager.stats().idle).toBe(2); // maxIdlePerKey: the third was destroyed
    expect(manager.shrink(0)).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(manager.stats()).toMatchObject({ idle: 0, busy: 0, quota: { cpus: 0, memoryMb: 0, diskMb: 0 } });
    expect(readdirSync(path.join(dataDir, 'sandboxes'))).toEqual([]);
  });

  it('closing a manager while a command runs ends that command with a sandbox_error and leaves nothing', async () => {
    const other = testManager('manager-close');
    const sb = await other.manager.acquire({ limits: { ...small, timeoutMs: 60_000 } });
    const started = await sb.exec(['true']); // the supervisor is up
    expect(started.status).toBe('ok');
    const running = sb.exec(['sh', '-c', 'sleep 50']);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    await other.manager.close();
    const r = await running;
    expect(performance.now() - t0).toBeLessThan(5000); // not the command's 50 s, nor its 60 s timeout
    expect(r.status).toBe('sandbox_error');
    expect(r.error).toMatch(/shut down/);
    expect(readdirSync(path.join(other.dataDir, 'sandboxes'))).toEqual([]);
    await other.cleanup();
  });

  it('admits at most capacity minus the 30% reserve', async () => {
    const { manager } = t;
    // capacity 2048 MB → 1433 MB admissible: two 600 MB sandboxes fit, a third does not
    const a = await manager.acquire({ limits: { ...small, memoryMb: 600 } });
    const b = await manager.acquire({ limits: { ...small, memoryMb: 600 } });
    await expect(manager.acquire({ limits: { ...small, memoryMb: 600 } })).rejects.toThrow(/host quota exceeded: memoryMb/);
    await manager.destroy(a);
    const c = await manager.acquire({ limits: { ...small, memoryMb: 600 } });
    await manager.destroy(b);
    await manager.destroy(c);
  });

  it('defaults are 2 vCPU / 4 GB / 50 GB, clipped to what the host can admit', () => {
    expect(limitsSchema.parse({})).toMatchObject({ cpus: 2, memoryMb: 4096, diskMb: 51200 });
    const ledger = new QuotaLedger({ cpus: 2, memoryMb: 4096, diskMb: 100_000 });
    expect(ledger.clampDefaults(limitsSchema.parse({}), {})).toMatchObject({ cpus: 1.4, memoryMb: 2867, diskMb: 51200 });
  });

  it('writes an audit row for every lifecycle event and exec, and a sandboxes row', async () => {
    const { manager } = t;
    const r = await manager.exec({ limits: small }, ['sh', '-c', 'exit 3'], {}, { runId: undefined, episodeId: undefined });
    expect(r.status).toBe('nonzero_exit');
    const rows = await database.db.select().from(auditLog).where(eq(auditLog.targetId, r.sandboxId));
    const actions = rows.map((x) => x.action);
    expect(actions).toContain('sandbox.exec');
    const exec = rows.find((x) => x.action === 'sandbox.exec')!;
    expect(exec.details).toMatchObject({ status: 'nonzero_exit', exitCode: 3, envHash: r.envHash, runtime: 'bwrap' });
    expect((exec.details as { commandSha256: string }).commandSha256).toMatch(/^[0-9a-f]{64}$/);
    const all = await database.db.select({ action: auditLog.action }).from(auditLog);
    expect(all.map((x) => x.action)).toEqual(expect.arrayContaining(['sandbox.create', 'sandbox.exec', 'sandbox.destroy']));
    const [row] = await database.db.select().from(sandboxes).where(eq(sandboxes.id, r.sandboxId));
    expect(row).toMatchObject({ runtime: 'bwrap', envHash: r.envHash });
    expect((await verifyAudit(database.db)).ok).toBe(true);
  });

  it('keeps the sandboxes row state live for the resources view: busy while acquired, warm while pooled', async () => {
    const { manager } = t;
    const stateOf = async (id: string) => {
      for (let i = 0; i < 50; i++) {
        const [row] = await database.db.select({ state: sandboxes.state }).from(sandboxes).where(eq(sandboxes.id, id));
        if (row) return row.state;
        await new Promise((r) => setTimeout(r, 20));
      }
      return undefined;
    };
    const until = async (id: string, want: string) => {
      for (let i = 0; i < 100 && (await stateOf(id)) !== want; i++) await new Promise((r) => setTimeout(r, 20));
      return stateOf(id);
    };
    const sb = await manager.acquire({ limits: small });
    expect(await until(sb.id, 'busy')).toBe('busy');
    await manager.release(sb);
    expect(await until(sb.id, 'warm')).toBe('warm');
    const again = await manager.acquire({ limits: small });
    expect(again.id).toBe(sb.id);
    expect(await until(sb.id, 'busy')).toBe('busy');
    await manager.destroy(again);
    expect(await until(sb.id, 'destroyed')).toBe('destroyed');
  });

  it('the first start registers the environment\'s baseline row; a quarantine refuses new sandboxes (warm or new) until an admin clears it', async () => {
    const env = t.manager.environment('default');
    // nothing but the acquires above wrote this row: the first start registered the baseline
    const [row] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
    expect(row).toMatchObject({ contentHash: env.hash, fileCount: env.fileCount, quarantinedAt: null });
    expect(row!.toolchainLock).toMatchObject({ node: expect.stringMatching(/^v\d+/) });
    // a start never overwrites a registered baseline (drift stays visible)
    const { registerEnvironment } = await import('@/server/environments/registry');
    await database.db.update(environments).set({ contentHash: 'sha256:other-host' }).where(eq(environments.name, 'default'));
    await registerEnvironment(database.db, env);
    const [kept] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
    expect(kept!.contentHash).toBe('sha256:other-host');
    await database.db.update(environments).set({ contentHash: env.hash }).where(eq(environments.name, 'default'));

    const { SandboxManager } = await import('./manager');
    const { TEST_STORE } = await import('../test-support');
    const m = new SandboxManager({ dataDir: t.dataDir, storeDir: TEST_STORE, records: sandboxRecords(database.db), quarantineCacheMs: 100, maxIdlePerKey: 1 });
    try {
      await m.prewarm({ limits: small }, 1); // a warm sandbox waiting in the pool
      expect(m.stats().idle).toBe(1);
      await setQuarantine(database.db, 'default', true, 'test', 'disputed rewards cluster on this hash');
      await new Promise((r) => setTimeout(r, 150)); // past the lookup cache
      await expect(m.acquire({ limits: small })).rejects.toThrow(/environment "default" is quarantined \(disputed rewards cluster on this hash\)[\s\S]*environments\.clear/);
      await expect(m.acquire({ limits: { ...small, memoryMb: 129 } })).rejects.toThrow(/quarantined/); // no new one either
      const r = await m.exec({ limits: small }, ['sh', '-c', 'echo should-not-run']);
      expect(r).toMatchObject({ status: 'env_mismatch', stdout: '', envHash: env.hash, runtime: 'bwrap' });
      expect(r.error).toMatch(/quarantined/);
      expect(m.stats()).toMatchObject({ idle: 1, busy: 0 }); // the warm one was not handed out

      // registering the environment again (a rebuild, `env build`) never clears a quarantine
      await recordEnvironment(database.db, env);
      const [still] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
      expect(still!.quarantinedAt).toBeInstanceOf(Date);
      await expect(m.acquire({ limits: small })).rejects.toThrow(/quarantined/);

      await setQuarantine(database.db, 'default', false, 'test'); // the explicit admin action
      await new Promise((r) => setTimeout(r, 150));
      const ok = await m.exec({ limits: small }, ['sh', '-c', 'echo runs-again']);
      expect(ok).toMatchObject({ status: 'ok', stdout: 'runs-again\n' });
    } finally {
      await m.close();
    }
  });

  it('records environments and their verification in the environments table', async () => {
    const env = t.manager.environment('default');
    await recordEnvironment(database.db, env);
    await recordVerification(database.db, env, verifyEnvironmentFull(env));
    const [row] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
    expect(row).toMatchObject({ contentHash: env.hash, fileCount: env.fileCount, quarantinedAt: null });
    expect(row!.toolchainLock).toMatchObject({ python3: expect.stringMatching(/^Python 3/), node: expect.stringMatching(/^v\d+/) });
    expect(row!.lastVerifiedAt).toBeInstanceOf(Date);
    await recordVerification(database.db, env, { ok: false, mode: 'full', problems: ['modified: /usr/bin/node'], durationMs: 1 });
    const [q] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
    expect(q!.quarantineReason).toContain('/usr/bin/node');
  });

  it('a data directory the sandbox uid cannot search is refused with what to chmod', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { SandboxManager } = await import('./manager');
    const { TEST_STORE } = await import('../test-support');
    const priv = mkdtempSync('/tmp/crucible-sbx-private-'); // mode 0700
    const m = new SandboxManager({ dataDir: priv, storeDir: TEST_STORE });
    try {
      await expect(m.acquire({ limits: small })).rejects.toThrow(/cannot be searched by the sandbox's host uid 65534[\s\S]*chmod o\+x/);
      expect(readdirSync(path.join(priv, 'sandboxes'))).toEqual([]);
    } finally {
      await m.close();
      rmSync(priv, { recursive: true, force: true });
    }
  });

  it('refuses a runtime that is not installed, saying what to install', async () => {
    await expect(t.manager.acquire({ runtime: 'oci:runsc' })).rejects.toThrow(/gVisor|runsc/);
    await expect(t.manager.acquire({ runtime: 'kata' })).rejects.toThrow(/Kata/);
    await expect(t.manager.acquire({ runtime: 'nonsense' })).rejects.toThrow(/unknown sandbox runtime/);
  });
});
