import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { SandboxManager } from '../pool/manager';
import { sweepDeadSandboxes } from '../pool/sweep';
import { mountedScratches } from './scratch';
import { TEST_STORE, ensureTestEnvironment, testDataDir } from '../sandbox.testkit';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * The worker-crash tests of the gVisor and microVM runtimes share this: a fixture worker
 * (fixtures/*-crash-worker.ts) starts a long exec and prints its sandbox's directory,
 * cgroups and host processes; the test kill -9s it and checks that nothing is left.
 */
export type CrashInfo = { dir: string; cgroups: string[]; pids: number[] };

/** Processes that are still alive (zombies count as gone). */
export function alive(pids: number[]): number[] {
  return pids.filter((p) => {
    try {
      return !/\) Z /.test(readFileSync(`/proc/${p}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
}

/**
 * Run `fixture` in a fresh data dir, hand `crash` its sandbox once the exec runs, then make
 * sure (also when the test fails) that the worker, the sandbox's processes and the data dir
 * are gone.
 */
export async function withCrashWorker(
  fixture: string,
  startMs: number,
  crash: (w: { child: ChildProcess; info: CrashInfo; dataDir: string }) => Promise<void>,
): Promise<void> {
  ensureTestEnvironment();
  const dataDir = testDataDir(path.basename(fixture, '.ts'));
  let info: CrashInfo | undefined;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', fixture), dataDir, TEST_STORE], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    info = await new Promise<CrashInfo>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0]!) as CrashInfo);
      });
      child.on('exit', (c) => reject(new Error(`crash worker exited early (${c})`)));
      setTimeout(() => reject(new Error(`crash worker did not start its exec within ${startMs / 1000} s`)), startMs);
    });
    await crash({ child, info, dataDir });
  } finally {
    child.kill('SIGKILL');
    // when the test fails: nothing of the (possibly stopped) sandbox stays behind
    for (const p of info?.pids ?? []) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    sweepDeadSandboxes(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Kill the worker; its sandbox's processes must die with it, before any sweep. */
export async function killWorker(child: ChildProcess, info: CrashInfo): Promise<void> {
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  for (let i = 0; i < 100 && alive(info.pids).length; i++) await new Promise((r) => setTimeout(r, 50));
  expect(alive(info.pids)).toEqual([]);
}

/** The next manager's start sweeps what the dead worker left: no directory, mount or cgroup remains. */
export async function expectSweptClean(dataDir: string, info: CrashInfo): Promise<void> {
  const next = new SandboxManager({ dataDir, storeDir: TEST_STORE, runtime: runtimeOptions(settings()) });
  try {
    expect(existsSync(info.dir)).toBe(false);
    expect(readdirSync(path.join(dataDir, 'sandboxes'))).toEqual([]);
    expect(mountedScratches().filter((m) => m.startsWith(dataDir))).toEqual([]);
    for (const cg of info.cgroups) expect(existsSync(cg)).toBe(false);
  } finally {
    await next.close();
  }
}
