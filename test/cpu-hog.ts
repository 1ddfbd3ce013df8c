import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

/**
 * Two busy loops per core, each in its own session: its own autogroup, weighing as a separate
 * job (in one session the kernel's autogroup would weigh them all as one task). Run as root,
 * each group gets nice HOG_NICE (/proc/<pid>/autogroup). At 0 a sandbox gets about a third of
 * a core on an otherwise idle 2-core host. Lower values starve it further: at −10 (about 5%
 * of a core) the wall-clock harness failed a load here, but a too-slow candidate's CPU no
 * longer fits its wall ceiling either, and it comes out unscored (the host's failure, by
 * design) instead of failing, so a test would not hold in a suite that already loads the host.
 * Test-only: the busy-host comparisons (reward suite, real-code corpus) share it.
 */
export const HOG_NICE = 0;

/**
 * A busy loop that ends when the test process is gone: detached, it would otherwise outlive a
 * killed test run and load the host for every run after it. It checks its parent every few
 * million iterations (a fraction of a second).
 */
const HOG = 'const p = process.ppid; for (let i = 1; ; i++) if (i % 5e6 === 0) { try { process.kill(p, 0); } catch { process.exit(0); } }';

export function saturate(): { stop: () => void } {
  const hogs: ChildProcess[] = Array.from({ length: 2 * os.availableParallelism() }, () =>
    spawn(process.execPath, ['-e', HOG], { stdio: 'ignore', detached: true }),
  );
  for (const h of hogs) {
    try {
      fs.writeFileSync(`/proc/${h.pid}/autogroup`, String(HOG_NICE));
    } catch {
      /* not root, or no autogroup: plain busy loops */
    }
  }
  return { stop: () => hogs.forEach((h) => h.kill('SIGKILL')) };
}
