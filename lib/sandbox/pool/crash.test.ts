import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxManager } from './manager';
import { mountedScratches } from '../runtimes/scratch';
import { TEST_STORE, installedRuntimes, testDataDir, ensureTestEnvironment } from '../sandbox.testkit';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

for (const rt of installedRuntimes(['bwrap', 'oci:runc', 'oci:crun'])) {
  describe.skipIf(!rt.available)(`crash recovery with ${rt.name}${rt.available ? '' : ` (skipped: ${rt.reason})`}`, () => {
    it('a worker kill -9ed mid-exec leaves nothing behind after the next start', async () => {
      ensureTestEnvironment();
      const dataDir = testDataDir('crash');
      dirs.push(dataDir);
      const marker = `${200 + (process.pid % 500)}.${Date.now() % 100000}`;
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/crash-worker.ts'), dataDir, TEST_STORE, marker, rt.name],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const killChild = () => child.kill('SIGKILL');
      process.once('exit', killChild);
      const info = await new Promise<{ dir: string; cgroups: string[]; pids: number[] }>((resolve, reject) => {
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0]!));
        });
        child.on('exit', (c) => reject(new Error(`crash worker exited early (${c})`)));
        setTimeout(() => reject(new Error('crash worker did not start its exec within 20 s')), 20_000);
      }).catch((e) => {
        killChild();
        throw e;
      });
      const running = processesWith(`sleep\0${marker}`).length;
      child.kill('SIGKILL');
      process.off('exit', killChild);
      expect(info.pids.length).toBeGreaterThanOrEqual(2);
      expect(running).toBeGreaterThanOrEqual(1);
      await new Promise((r) => child.once('exit', r));
      // state the dead worker left: its directory, scratch mount, cgroups
      expect(existsSync(info.dir)).toBe(true);

      const manager = new SandboxManager({ dataDir, storeDir: TEST_STORE, runtime: runtimeOptions(settings()) });
      try {
        // any manager start sweeps every dead owner's scratch mounts, so one starting meanwhile
        // in a parallel test file may be the one that removed them: assert the state, not who
        expect(existsSync(info.dir)).toBe(false);
        expect(readdirSync(path.join(dataDir, 'sandboxes'))).toEqual([]);
        expect(mountedScratches().filter((m) => m.startsWith(dataDir))).toEqual([]);
        for (const cg of info.cgroups) expect(existsSync(cg)).toBe(false);
        for (let i = 0; i < 50 && processesWith(`sleep\0${marker}`).length; i++) await new Promise((r) => setTimeout(r, 20));
        expect(processesWith(`sleep\0${marker}`)).toEqual([]);
        // its launcher died with it (PR_SET_PDEATHSIG), and the sweep removed its socket directory
        expect(processesWith(`crucible-launcher`).filter((p) => processesWith(`\0${child.pid}\0`).includes(p))).toEqual([]);
        expect(readdirSync(os.tmpdir()).filter((n) => n.startsWith(`crucible-l-${child.pid}.`))).toEqual([]);
      } finally {
        await manager.close();
      }
    });
  });
}
