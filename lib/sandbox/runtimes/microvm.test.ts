import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManager } from '../pool/manager';
import { installedRuntimes, testDataDir, testManager } from '../sandbox.testkit';
import { expectSweptClean, killWorker, withCrashWorker } from './crash.testkit';
import { MicrovmRuntime, type MicrovmSandbox } from './microvm';
import { buildEnvironment } from '../env/env-build';
import { checkRootImage, rootImage } from './microvm-disks';
import { runtimeOptions } from './options';
import { runtimeByName } from './runtime-by-name';
import { settings } from '@/core/settings';

/**
 * The microVM runtime for real (QEMU, Debian's cloud kernel, real cgroups). Under TCG a
 * boot costs ~5 s of CPU, so this file boots two VMs: one shared by every in-VM test
 * (they run in order and hand it back through the pool), and one in the worker that is
 * kill -9ed (a tampered root image is refused before any boot). The hostile-code set runs on microvm in hostile.test.ts.
 */
const [rt] = installedRuntimes(['microvm']);
const limits = { memoryMb: 128, diskMb: 24, pids: 64, cpus: 1, timeoutMs: 30_000 };

describe('microvm without QEMU or a kernel', () => {
  it('is refused with the install command, never replaced by another runtime', () => {
    expect(runtimeByName('microvm', runtimeOptions(settings()))).toBeInstanceOf(MicrovmRuntime);
    const noQemu = runtimeByName('microvm', { ...runtimeOptions(settings()), qemu: '/nonexistent/qemu-system-x86_64' });
    expect(() => noQemu.check()).toThrow(/needs QEMU.*apt-get install qemu-system-x86/);
    const noKernel = runtimeByName('microvm', { ...runtimeOptions(settings()), microvmKernel: '/nonexistent/kernel' });
    expect(() => noKernel.check()).toThrow(/guest kernel.*scripts\/microvm-kernel\.sh \/nonexistent\/kernel/);
    expect(noKernel.name).toBe('microvm');
  });
});

describe.skipIf(!rt?.available)(`microvm sandboxes${rt?.available ? '' : ` (skipped: ${rt?.reason})`}`, () => {
  let manager: SandboxManager;
  let cleanup: () => Promise<void>;
  let accel: string;
  const acquire = async () => (await manager.acquire({ runtime: 'microvm', limits })) as MicrovmSandbox;
  beforeAll(() => {
    ({ manager, cleanup } = testManager('microvm', { maxIdlePerKey: 1 }));
    accel = (manager.runtime('microvm') as MicrovmRuntime).details().accel;
  });
  afterAll(async () => cleanup?.());

  it('says which accelerator runs (KVM where a guest boots under it, else TCG) and why, in details and every result', async () => {
    const d = (manager.runtime('microvm') as MicrovmRuntime).details();
    expect(d.version).toMatch(/QEMU emulator version \d/);
    expect(d.kernel).toMatch(/cloud-amd64/);
    expect(d.accels.map((a) => a.accel)).toEqual(['kvm', 'tcg']);
    const kvm = d.accels[0]!;
    if (!kvm.ok) expect(kvm.reason).toBeTruthy();
    expect(d.accel).toBe(kvm.ok ? 'kvm' : 'tcg');
    const sb = await acquire();
    try {
      const r = await sb.exec(['sh', '-c', 'echo hi; exit 3']);
      expect(r, r.error).toMatchObject({ status: 'nonzero_exit', exitCode: 3, stdout: 'hi\n', runtime: 'microvm', platform: accel });
    } finally {
      await manager.release(sb);
    }
  });

  it('boots once: execs and a release/acquire reuse the same VM; commands run as uid 1000 without capabilities on a guest kernel', async () => {
    const sb = await acquire();
    expect((await sb.exec(['true'])).status).toBe('ok'); // booted
    const qemu = sb.residentPids().sort();
    expect(qemu.length).toBeGreaterThanOrEqual(1);
    for (const cmd of [
      ['python3', '-c', 'print(6*7)'],
      ['node', '-e', 'console.log(6*7)'],
    ]) {
      const r = await sb.exec(cmd);
      expect(r, cmd[0]).toMatchObject({ status: 'ok', stdout: '42\n', platform: accel });
    }
    const who = await sb.exec(['sh', '-c', 'id -u; grep CapEff /proc/self/status; pwd; echo $X; uname -r; cat'], { cwd: '/tmp', env: { X: 'y' }, stdin: 'in' });
    expect(who.stdout).toMatch(/^1000\nCapEff:\t0000000000000000\n\/tmp\ny\n\d+\.\d+\.\d+-\d+-cloud-amd64\nin$/);
    await manager.release(sb);
    const again = await acquire();
    try {
      expect(again).toBe(sb);
      expect((await again.exec(['true'])).status).toBe('ok');
      expect(again.residentPids().sort()).toEqual(qemu); // the same QEMU: nothing booted again
    } finally {
      await manager.release(again);
    }
  });

  it('the root is the read-only disk (read-only at the device, not only the mount); there is no network device', async () => {
    const sb = await acquire();
    try {
      const r = await sb.exec([
        'sh',
        '-c',
        'grep " / / " /proc/self/mountinfo; echo x > /usr/evil; echo w=$?; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "',
      ]);
      expect(r.stdout).toMatch(/ \/ \/ ro,.* - ext4 \/dev\/vd[a-z] ro/);
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(r.stdout).toContain('w=2');
      expect(r.stdout.trim().split('\n').slice(-1)).toEqual(['lo']); // the only interface
      // the guest kernel's own view of the block device (BLKROGET), reported by its init at boot
      const consoleLog = readdirSync(sb.dir).find((f) => f.startsWith('console-'));
      expect(readFileSync(path.join(sb.dir, consoleLog!), 'utf8')).toContain('crucible-init: root-ro=1');
    } finally {
      await manager.release(sb);
    }
  });

  it('putFile reaches the guest at the next exec; getFile is refused with what to do instead; reset wipes /work, /tmp and /dev/shm', async () => {
    const sb = await acquire();
    sb.putFile('/work/sub/in.txt', 'from the host');
    expect(() => sb.getFile('/work/sub/in.txt')).toThrow(/not available for microvm.*cat/);
    const r = await sb.exec(['sh', '-c', 'cat sub/in.txt; echo t > /tmp/t; echo s > /dev/shm/s; echo w > /work/w']);
    expect(r.stdout).toBe('from the host');
    await manager.release(sb);
    const again = await acquire();
    try {
      expect(again).toBe(sb);
      const after = await again.exec(['sh', '-c', 'echo /work/* /tmp/* /dev/shm/*']);
      expect(after.stdout).toBe('/work/* /tmp/* /dev/shm/*\n');
    } finally {
      await manager.release(again);
    }
  });

  it('a timeout kills the command inside the guest on time and the VM serves the next exec; a memory bomb is memory_limit', async () => {
    const sb = await acquire();
    try {
      expect((await sb.exec(['true'])).status).toBe('ok'); // booted
      const qemu = sb.residentPids().sort();
      expect(qemu.length).toBeGreaterThanOrEqual(1);
      const t = await sb.exec(['sh', '-c', 'sleep 100 & python3 -c "while True: pass"'], { timeoutMs: 1500 });
      expect(t.status).toBe('timeout');
      expect(t.durationMs).toBeLessThan(4000);
      const ps = await sb.exec(['sh', '-c', 'cat /proc/[0-9]*/cmdline | tr "\\0" " "']);
      expect(ps.stdout).not.toMatch(/sleep 100|while True/);
      const m = await sb.exec(['python3', '-c', 'x = bytearray(1024 * 1024 * 1024)']);
      expect(m.status).toBe('memory_limit');
      expect(m.usage.maxRssMb).toBeLessThanOrEqual(limits.memoryMb + 2);
      expect((await sb.exec(['echo', 'ok'])).stdout).toBe('ok\n');
      expect(sb.residentPids().sort()).toEqual(qemu);
    } finally {
      await manager.release(sb);
    }
  });

  it('a root image that differs from the one built is refused before the VM boots (env_mismatch), and rebuilt from the verified directory', async () => {
    // a private store with a tiny environment: its image is small and nobody else boots from it
    const store = testDataDir('microvm-tamper-store');
    const t = testManager('microvm-tamper', { storeDir: store });
    try {
      const env = buildEnvironment({ name: 'tiny', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/cat'], toolchain: ['sh'] }, store);
      const image = rootImage(path.join(store, 'microvm'), env);
      chmodSync(image, 0o644);
      const fd = openSync(image, 'r+');
      writeSync(fd, Buffer.from('tampered'), 0, 8, 1024 * 1024);
      closeSync(fd);
      const r = await t.manager.exec({ runtime: 'microvm', env: 'tiny', limits }, ['true']);
      expect(r.status).toBe('env_mismatch');
      expect(r.error).toMatch(/root image .* changed/);
      expect(existsSync(image)).toBe(false);
      rootImage(path.join(store, 'microvm'), env); // what the next start does
      expect(checkRootImage(image)).toEqual([]);
    } finally {
      await t.cleanup();
      rmSync(store, { recursive: true, force: true });
    }
  });

  it('a worker kill -9ed mid-exec takes its VM with it; the next start leaves nothing behind', async () => {
    await withCrashWorker('microvm-crash-worker.ts', 90_000, async ({ child, info, dataDir }) => {
      const qemu = info.pids.filter((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('qemu-system-x86_64\0'));
      expect(qemu.length).toBe(1);
      // a wedged VMM (stopped): it cannot notice its stdin closing, only the parent-death signal reaches it
      process.kill(qemu[0]!, 'SIGSTOP');
      await killWorker(child, info);
      await expectSweptClean(dataDir, info); // its scratch disk and console log went with the directory
    });
  }, 120_000);
});
