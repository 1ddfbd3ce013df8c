import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, environments, sandboxes } from '@/db/schema';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { verifyAudit } from '@/server/audit/service';
import { setQuarantine } from '@/server/reviews/environments';
import { verifyEnvironmentFull } from '@/lib/sandbox/env/env-verify';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { TEST_STORE, testManager } from '@/lib/sandbox/sandbox.testkit';
import { recordEnvironment, recordVerification, registerEnvironment } from './registry';
import { sandboxRecords } from './sandbox-records';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

const small = { memoryMb: 128, diskMb: 16, cpus: 0.5, timeoutMs: 5000 };

// A real SandboxManager given this database through its records port (lib/sandbox/ports.ts):
// what the sandbox library reports must land in the audit log, the sandboxes and environments
// tables, and a quarantine set here must stop it.
describe('sandbox records: the sandbox library over the database', () => {
  let database: Database;
  let t: ReturnType<typeof testManager>;
  beforeAll(async () => {
    database = await freshDatabase();
    t = testManager('records', {
      records: sandboxRecords(database.db),
      actor: 'test',
      maxIdlePerKey: 2,
      idleTtlMs: 60_000,
      capacity: { cpus: 4, memoryMb: 2048, diskMb: 1000 },
    });
  });
  afterAll(async () => t?.cleanup());

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
    // and the end of a lifecycle: the exec's sandbox, back in the pool, destroyed
    await manager.destroy(await manager.acquire({ limits: small }));
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

  it("the first start registers the environment's baseline row; a quarantine refuses new sandboxes (warm or new) until an admin clears it", async () => {
    const env = t.manager.environment('default');
    // nothing but the acquires above wrote this row: the first start registered the baseline
    const [row] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
    expect(row).toMatchObject({ contentHash: env.hash, fileCount: env.fileCount, quarantinedAt: null });
    expect(row!.toolchainLock).toMatchObject({ node: expect.stringMatching(/^v\d+/) });
    // a start never overwrites a registered baseline (drift stays visible)
    await database.db.update(environments).set({ contentHash: 'sha256:other-host' }).where(eq(environments.name, 'default'));
    await registerEnvironment(database.db, env);
    const [kept] = await database.db.select().from(environments).where(eq(environments.name, 'default'));
    expect(kept!.contentHash).toBe('sha256:other-host');
    await database.db.update(environments).set({ contentHash: env.hash }).where(eq(environments.name, 'default'));

    const m = new SandboxManager({
      dataDir: t.dataDir,
      storeDir: TEST_STORE,
      records: sandboxRecords(database.db),
      quarantineCacheMs: 100,
      maxIdlePerKey: 1,
      runtime: runtimeOptions(settings()),
    });
    try {
      await m.prewarm({ limits: small }, 1); // a warm sandbox waiting in the pool
      expect(m.stats().idle).toBe(1);
      await setQuarantine(database.db, 'default', true, 'test', 'disputed rewards cluster on this hash');
      await new Promise((r) => setTimeout(r, 150)); // past the lookup cache
      await expect(m.acquire({ limits: small })).rejects.toThrow(
        /environment "default" is quarantined \(disputed rewards cluster on this hash\)[\s\S]*environments\.clear/,
      );
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

  it('a host whose build of an environment differs from the baseline another host registered is refused before its first start (scale-out)', async () => {
    const env = t.manager.environment('default');
    // another host registered "default" first, from a build with other bytes
    const other = 'f'.repeat(64);
    await database.db.update(environments).set({ contentHash: other }).where(eq(environments.name, 'default'));
    const m = new SandboxManager({
      dataDir: t.dataDir,
      storeDir: TEST_STORE,
      records: sandboxRecords(database.db),
      quarantineCacheMs: 50,
      runtime: runtimeOptions(settings()),
    });
    try {
      const r = await m.exec({ limits: small }, ['sh', '-c', 'echo should-not-run']);
      expect(r).toMatchObject({ status: 'env_mismatch', stdout: '', envHash: env.hash });
      expect(r.error).toContain(`on this host has content hash ${env.hash}, but its baseline`);
      expect(r.error).toContain(other);
      expect(r.error).toMatch(/crucible env build/);
      // once the baseline is this build's again (the host rebuilt, or fetched it), it starts
      await database.db.update(environments).set({ contentHash: env.hash }).where(eq(environments.name, 'default'));
      await new Promise((res) => setTimeout(res, 100)); // past the lookup cache
      expect(await m.exec({ limits: small }, ['sh', '-c', 'echo runs'])).toMatchObject({ status: 'ok', stdout: 'runs\n' });
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
});
