import { childEnv, settings } from '@/core/settings';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_RUNTIME_NAMES } from '@/core/sandbox-runtimes';
import type { Database } from '@/db/client';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { sandboxExecPayload } from '@/core/job-payloads';
import { checkIsolationPolicy } from './isolation';
import { runtimeOptions } from './options';
import { runtimeByName } from './runtime-by-name';
import { TEST_STORE, ensureTestEnvironment, testDataDir, testManager } from '../sandbox.testkit';
import { SandboxError } from '../types';

// `oci:BINARY` used to run any host binary as the OCI runtime, as root: `oci:echo` "ran"
// every command with status ok. Names now come from a fixed list, checked at every entry.
const hostBinaries = ['oci:echo', 'oci:true', 'oci:/bin/sh', 'oci:../../bin/sh', 'echo', 'oci:'];
const listsValidNames = /bwrap, oci, oci:crun, oci:runc, oci:runsc, oci:kata-runtime/;

describe('sandbox runtime names come from a fixed list', () => {
  it('the library refuses any other name with the list of valid ones; every listed name resolves', () => {
    for (const name of hostBinaries) {
      let err: unknown;
      try {
        runtimeByName(name, runtimeOptions(settings()));
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeInstanceOf(SandboxError);
      expect((err as SandboxError).kind, name).toBe('config');
      expect((err as Error).message, name).toMatch(listsValidNames);
    }
    for (const name of SANDBOX_RUNTIME_NAMES)
      expect(runtimeByName(name, runtimeOptions(settings())).name, name).toMatch(/^(bwrap|gvisor|microvm|oci:(crun|runc|kata-runtime|youki))$/);
    expect(runtimeByName('oci:runsc', runtimeOptions(settings())).name).toBe('gvisor'); // runsc is served (and named) as gVisor
    expect(() => checkIsolationPolicy({ routine: 'bwrap', high: 'oci:echo' }, runtimeOptions(settings()))).toThrow(
      /high risk: "oci:echo" is not a runtime name \(use one of bwrap, oci,/,
    );
  });

  it('CRUCIBLE_OCI_RUNTIME must name a supported OCI runtime', () => {
    const oci = (ociRuntime?: string) => runtimeByName('oci', { ...runtimeOptions(settings()), ociRuntime });
    expect(() => oci('echo')).toThrow(/CRUCIBLE_OCI_RUNTIME="echo" is not an OCI runtime Crucible supports: use one of crun, runc, runsc/);
    expect(oci('runc').name).toBe('oci:runc');
    expect(oci('oci:runsc').name).toBe('gvisor');
    expect(oci(undefined).name).toBe('oci:crun');
  });

  it('the manager refuses to exec under oci:echo / oci:true (it used to report status ok)', async () => {
    const { manager, cleanup } = testManager('rtnames');
    try {
      for (const runtime of ['oci:echo', 'oci:true']) {
        const r = await manager.exec({ runtime, limits: { memoryMb: 64 } }, ['true']).then(
          (x) => x,
          (e: unknown) => e,
        );
        expect(r, runtime).toBeInstanceOf(SandboxError);
        expect((r as Error).message).toMatch(listsValidNames);
      }
    } finally {
      await cleanup();
    }
  });

  it('sandbox.exec job payloads refuse unknown runtimes', () => {
    const r = sandboxExecPayload.safeParse({ cmd: ['true'], runtime: 'oci:echo' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(listsValidNames);
    expect(sandboxExecPayload.parse({ cmd: ['true'], runtime: 'oci:runc' }).runtime).toBe('oci:runc');
  });
});

describe('runtime names at the CLI and API entry points', () => {
  let database: Database;
  let dataDir: string;
  beforeAll(async () => {
    database = await freshDatabase();
    ensureTestEnvironment();
    dataDir = testDataDir('rtnames-cli');
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('crucible sandbox exec --runtime oci:echo exits 2 with the valid names, running nothing', async () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(root, 'scripts/crucible.mjs'), 'sandbox', 'exec', '--runtime', 'oci:echo', '--json', '--', 'true'],
        {
          cwd: root,
          env: childEnv({ CRUCIBLE_DATA_DIR: dataDir, CRUCIBLE_ENV_STORE: TEST_STORE, DATABASE_URL: '' }),
        },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(r.code, r.stdout).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--runtime: unknown sandbox runtime "oci:echo": use one of bwrap, oci, oci:crun/);
  });

  it('runs.create refuses an isolation runtime outside the list (BAD_REQUEST naming the field and the list)', async () => {
    const admin = await callerAs(database.db, 'admin');
    const err = await admin.runs
      .create({ name: 'evil-runtime', config: { isolation: { routine: 'bwrap', high: 'oci:echo' as 'bwrap' } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect((err as TRPCError).code).toBe('BAD_REQUEST');
    const issues = ((err as TRPCError).cause as unknown as { issues: { path: (string | number)[]; message: string }[] }).issues;
    expect(issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['config.isolation.high', expect.stringMatching(/^unknown sandbox runtime "oci:echo": use one of bwrap, oci, oci:crun/)],
    ]);
    const ok = await admin.runs.create({ name: 'gvisor-run', config: { isolation: { routine: 'bwrap', high: 'oci:runsc' } } });
    expect(ok).toBeTruthy();
  });
});
