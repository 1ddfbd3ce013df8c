import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaLedger } from '../limits/quota';
import { runtimeOptions } from '../runtimes/options';
import { testManager } from '../sandbox.testkit';
import { limitsSchema } from '../types';
import { settings } from '@/core/settings';

const small = { memoryMb: 128, diskMb: 16, cpus: 0.5, timeoutMs: 5000 };

// Audit rows, sandboxes rows, environment rows and quarantine (the records port over the
// database) are tested beside that adapter: server/environments/sandbox-records.test.ts.
describe('sandbox manager: warm pool, quotas', () => {
  let t: ReturnType<typeof testManager>;
  beforeAll(() => {
    t = testManager('manager', { actor: 'test', maxIdlePerKey: 2, idleTtlMs: 60_000, capacity: { cpus: 4, memoryMb: 2048, diskMb: 1000 } });
  });
  afterAll(async () => t?.cleanup());

  it('reuses a warm sandbox after a reset: processes killed, scratch wiped, near-instant acquire', async () => {
    const { manager } = t;
    const a = await manager.acquire({ limits: small });
    a.putFile('/work/hello.txt', 'hi');
    const r = await a.exec(['sh', '-c', 'cat hello.txt; echo left > /tmp/left; (sleep 30 &) ; echo ok']);
    expect(r.stdout).toBe('hiok\n');
    await manager.release(a);
    // median of a few (one may be slow on a loaded host)
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

  it('a data directory the sandbox uid cannot search is refused with what to chmod', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { SandboxManager } = await import('./manager');
    const { TEST_STORE } = await import('../sandbox.testkit');
    const priv = mkdtempSync('/tmp/crucible-sbx-private-'); // mode 0700
    const m = new SandboxManager({ dataDir: priv, storeDir: TEST_STORE, runtime: runtimeOptions(settings()) });
    try {
      await expect(m.acquire({ limits: small })).rejects.toThrow(/cannot be searched by the sandbox's host uid 65534[\s\S]*chmod o\+x/);
      expect(readdirSync(path.join(priv, 'sandboxes'))).toEqual([]);
    } finally {
      await m.close();
      rmSync(priv, { recursive: true, force: true });
    }
  });

  it('refuses a runtime that is not installed, saying what to install', async () => {
    // a host without gVisor, whatever this one has: runsc at a path that does not exist
    const noGvisor = testManager('no-gvisor', { runtime: { ...runtimeOptions(settings()), runsc: '/nonexistent/crucible-test/runsc' } });
    try {
      await expect(noGvisor.manager.acquire({ runtime: 'oci:runsc' })).rejects.toThrow(/gVisor|runsc/);
    } finally {
      await noGvisor.cleanup();
    }
    await expect(t.manager.acquire({ runtime: 'kata' })).rejects.toThrow(/Kata/);
    await expect(t.manager.acquire({ runtime: 'nonsense' })).rejects.toThrow(/unknown sandbox runtime/);
  });
});
