import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import { TEST_STORE, testDataDir, ensureTestEnvironment } from '@/lib/sandbox/sandbox.testkit';

// Real `crucible` processes (scripts/crucible.mjs), as automation calls them.
const root = path.resolve(import.meta.dirname, '..');
let dataDir: string;
beforeAll(() => {
  ensureTestEnvironment();
  dataDir = testDataDir('cli');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function crucible(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts/crucible.mjs'), ...args],
      {
        cwd: root,
        env: childEnv({ CRUCIBLE_DATA_DIR: dataDir, CRUCIBLE_ENV_STORE: TEST_STORE, DATABASE_URL: '', ...extraEnv }),
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const KEYS = [
  'status',
  'exitCode',
  'signal',
  'stdout',
  'stderr',
  'stdoutTruncated',
  'stderrTruncated',
  'durationMs',
  'envHash',
  'runtime',
  'sandboxId',
  'usage',
];

describe('crucible sandbox exec (CLI contract)', () => {
  it('prints one JSON object with exactly the contract fields; binary output keeps it valid; exit 0 on any status', async () => {
    const src = path.join(dataDir, 'prog.py');
    writeFileSync(src, 'import sys\nsys.stdout.buffer.write(bytes(range(256)))\nsys.exit(7)\n');
    const r = await crucible([
      'sandbox',
      'exec',
      '--memory-mb',
      '128',
      '--timeout-ms',
      '5000',
      '--file',
      `${src}:/work/prog.py`,
      '--json',
      '--',
      'python3',
      'prog.py',
    ]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]!) as Record<string, unknown>;
    for (const k of KEYS) expect(j).toHaveProperty(k);
    expect(j).toMatchObject({ status: 'nonzero_exit', exitCode: 7, signal: null, runtime: 'bwrap', stdoutTruncated: false });
    expect(j.envHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    // cpuWaitMs only where the host measures it (limits/cpu-wait.ts)
    const { cpuWaitMs, ...usage } = j.usage as { cpuWaitMs?: unknown };
    expect(usage).toEqual({ cpuMs: expect.any(Number), maxRssMb: expect.any(Number) });
    if (cpuWaitMs !== undefined) expect(cpuWaitMs).toEqual(expect.any(Number));
    expect((j.stdout as string).startsWith('\u0000\u0001\u0002')).toBe(true);

    const t = await crucible(['sandbox', 'exec', '--timeout-ms', '500', '--memory-mb', '64', '--json', '--', 'sleep', '10']);
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ status: 'timeout' });
  });

  it('missing runtime and bad arguments exit non-zero with what to install or change', async () => {
    const [missing, bad, none, allow] = await Promise.all([
      // a host without gVisor, whatever this one has: runsc at a path that does not exist
      crucible(['sandbox', 'exec', '--runtime', 'oci:runsc', '--json', '--', 'true'], { CRUCIBLE_RUNSC: '/nonexistent/crucible-test/runsc' }),
      crucible(['sandbox', 'exec', '--memory-mb', 'lots', '--json', '--', 'true']),
      crucible(['sandbox', 'exec', '--json']),
      crucible(['sandbox', 'exec', '--allow', 'not a host', '--json', '--', 'true']),
    ]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/gVisor/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--memory-mb must be a number/);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no command given/);
    expect(allow.code).toBe(2);
    expect(allow.stderr).toMatch(/HOST:PORT/);
  });

  it('sandbox runtimes --json says which tiers work here, with versions, and why not; gvisor names its platform', async () => {
    const [here, without] = await Promise.all([
      crucible(['sandbox', 'runtimes', '--json']),
      crucible(['sandbox', 'runtimes', '--json'], { CRUCIBLE_RUNSC: '/nonexistent/crucible-test/runsc' }),
    ]);
    expect(here.code, here.stderr).toBe(0);
    type Row = {
      name: string;
      available: boolean;
      version?: string;
      platform?: string;
      platforms?: { platform: string; works: boolean; reason?: string }[];
      reason?: string;
    };
    const rows = JSON.parse(here.stdout) as Row[];
    expect(rows.map((r) => r.name)).toEqual(['bwrap', 'oci:crun', 'oci:runc', 'gvisor', 'microvm', 'oci:kata-runtime', 'oci:youki']);
    // microvm names its accelerator (kvm or tcg) where QEMU and its kernel are installed, else what to install
    const microvm = rows.find((r) => r.name === 'microvm')!;
    if (microvm.available) expect(microvm.platform).toMatch(/^(kvm|tcg)$/);
    else expect(microvm.reason).toMatch(/qemu-system-x86|microvm-kernel\.sh/);
    for (const r of rows) expect(r.available ? r.version : r.reason, r.name).toBeTruthy();
    const gvisor = rows.find((r) => r.name === 'gvisor')!;
    if (gvisor.available) {
      expect(gvisor.platform).toMatch(/^(kvm|systrap|ptrace)$/);
      expect(gvisor.platforms!.find((p) => p.works)?.platform).toBe(gvisor.platform);
      for (const p of gvisor.platforms!.filter((x) => !x.works)) expect(p.reason, p.platform).toBeTruthy();
      const r = await crucible(['sandbox', 'exec', '--runtime', 'gvisor', '--json', '--', 'python3', '-c', 'print(6*7)']);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', stdout: '42\n', runtime: 'gvisor', platform: gvisor.platform });
    }
    const missing = (JSON.parse(without.stdout) as Row[]).find((r) => r.name === 'gvisor')!;
    expect(missing.available).toBe(false);
    expect(missing.reason).toMatch(/apt-get install runsc/);
  });

  it('env build / verify / list, and a tampered environment is refused (env_mismatch)', async () => {
    const spec = path.join(dataDir, 'tiny.json');
    writeFileSync(spec, JSON.stringify({ name: 'tinycli', include: ['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/echo'], toolchain: ['sh'] }));
    const store = path.join(dataDir, 'store');
    mkdirSync(store, { mode: 0o755 });
    const withStore = (args: string[]) => crucible(args, { CRUCIBLE_ENV_STORE: store });
    const b = await withStore(['env', 'build', spec, '--json']);
    expect(b.code).toBe(0);
    const built = JSON.parse(b.stdout) as { hash: string; rootfs: string; toolchainLock: Record<string, string> };
    expect(built.toolchainLock.sh).toContain('dash');
    const ok = await withStore(['env', 'verify', 'tinycli', '--json']);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, mode: 'full', hash: built.hash });
    writeFileSync(path.join(built.rootfs, 'usr/bin/planted'), 'x');
    const bad = await withStore(['env', 'verify', 'tinycli']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/added: \/usr\/bin\/planted/);
    const run = await withStore(['sandbox', 'exec', '--env', 'tinycli', '--memory-mb', '64', '--json', '--', 'echo', 'hi']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'env_mismatch', envHash: built.hash });
  });
});
