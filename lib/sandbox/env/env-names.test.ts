import { childEnv } from '@/core/settings';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvironment, type EnvSpecInput } from './env-build';
import { resolveEnvironment } from './env-builtin';
import type { Environment } from './env-manifest';
import { listEnvironments, loadEnvironment } from './env-store';
import { sandboxExecPayload } from '@/core/job-payloads';
import { testDataDir } from '../sandbox.testkit';

// Environment names become file names under the store's refs/ and hashes directory names
// under the store: a crafted one must never point a sandbox's root outside the store.
const tiny: EnvSpecInput = { name: 'tiny', include: ['/usr/bin/sh', '/usr/bin/dash'], toolchain: [] };
const root = testDataDir('envnames');
const store = path.join(root, 'store');
const planted = path.join(root, 'planted');
let env: Environment;

beforeAll(() => {
  mkdirSync(store, { recursive: true });
  env = buildEnvironment(tiny, store);
  // What an attacker who can write somewhere outside the store (e.g. a sandbox's scratch
  // directory) plants: a ref and an "environment" whose rootfs is the host's /.
  const fake = path.join(planted, 'fake');
  mkdirSync(fake, { recursive: true });
  for (const f of ['meta.json', 'manifest.json']) writeFileSync(path.join(fake, f), readFileSync(path.join(env.dir, f)));
  symlinkSync('/', path.join(fake, 'rootfs'));
  writeFileSync(path.join(planted, 'x.json'), JSON.stringify({ hash: 'sha256:../planted/fake' }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CRAFTED_NAMES = [
  '..',
  '../..',
  '/',
  'a/../../',
  'a/b',
  'a\0b',
  'a'.repeat(64),
  'x'.repeat(10_000),
  'Default',
  'PY311',
  '',
  ' default',
  '.hidden',
  '-x',
  '../../planted/x',
];

describe('environment names and hashes in the env store', () => {
  it('a valid name still resolves', () => {
    expect(loadEnvironment('tiny', store).hash).toBe(env.hash);
    expect(listEnvironments(store).map((e) => e.name)).toEqual(['tiny']);
  });

  for (const name of CRAFTED_NAMES) {
    it(`refuses the name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 20)}…(${name.length})` : name)} when loading, resolving and building`, () => {
      expect(() => loadEnvironment(name, store)).toThrow(/invalid environment name/);
      expect(() => resolveEnvironment(name, store)).toThrow(/invalid environment name/);
      expect(() => buildEnvironment({ ...tiny, name }, store)).toThrow(/environment names are 1-63 characters/);
    });
  }

  it('a traversal name never reaches the planted ref whose rootfs is the host /', () => {
    let loaded: Environment | undefined;
    try {
      loaded = loadEnvironment('../../planted/x', store);
    } catch {
      /* refused: what we want */
    }
    expect(loaded && realpathSync(loaded.rootfs)).toBeUndefined();
  });

  const hex = 'ab'.repeat(32);
  const CRAFTED_HASHES: unknown[] = [
    `sha256:${hex.slice(1)}`,
    `sha256:${hex}0`,
    `sha256:${'g'.repeat(64)}`,
    `sha256:${hex.toUpperCase()}`,
    hex,
    `md5:${hex}`,
    'sha256:../planted/fake',
    'sha256:../../../..',
    '',
    42,
    null,
  ];
  for (const hash of CRAFTED_HASHES) {
    it(`refuses a ref whose hash is ${JSON.stringify(hash)}`, () => {
      writeFileSync(path.join(store, 'refs', 'badhash.json'), JSON.stringify({ name: 'badhash', hash }));
      try {
        expect(() => loadEnvironment('badhash', store)).toThrow(/invalid environment hash/);
      } finally {
        rmSync(path.join(store, 'refs', 'badhash.json'));
      }
    });
  }

  it('lists only valid refs: a stray file under refs/ with an invalid name is skipped', () => {
    writeFileSync(path.join(store, 'refs', 'Not A Name.json'), JSON.stringify({ hash: env.hash }));
    try {
      expect(listEnvironments(store).map((e) => e.name)).toEqual(['tiny']);
    } finally {
      rmSync(path.join(store, 'refs', 'Not A Name.json'));
    }
  });
});

describe('symlinks planted in the store to escape its root are refused (realpath check)', () => {
  const ref = (name: string, hash: string) => writeFileSync(path.join(store, 'refs', `${name}.json`), JSON.stringify({ name, hash }));

  it('a hash directory that is a link to the host /', () => {
    const h = 'cd'.repeat(32);
    symlinkSync('/', path.join(store, h));
    ref('linkroot', `sha256:${h}`);
    expect(() => loadEnvironment('linkroot', store)).toThrow(/outside the environment store/);
  });

  it('a hash directory that is a link to a planted environment outside the store', () => {
    const h = 'ef'.repeat(32);
    symlinkSync(path.join(planted, 'fake'), path.join(store, h));
    ref('linkdir', `sha256:${h}`);
    expect(() => loadEnvironment('linkdir', store)).toThrow(/outside the environment store/);
  });

  it('a real hash directory whose rootfs is a link to the host /', () => {
    const h = '12'.repeat(32);
    const dir = path.join(store, h);
    mkdirSync(dir);
    for (const f of ['meta.json', 'manifest.json']) writeFileSync(path.join(dir, f), readFileSync(path.join(env.dir, f)));
    symlinkSync('/', path.join(dir, 'rootfs'));
    ref('linkrootfs', `sha256:${h}`);
    expect(() => loadEnvironment('linkrootfs', store)).toThrow(/rootfs .* resolves to \/, outside the environment store/);
  });

  it('a ref that is a link to a file outside the store', () => {
    writeFileSync(path.join(planted, 'outside.json'), JSON.stringify({ hash: env.hash }));
    symlinkSync(path.join(planted, 'outside.json'), path.join(store, 'refs', 'linkref.json'));
    expect(() => loadEnvironment('linkref', store)).toThrow(/outside the environment store/);
  });

  it('a store that is itself reached through a link still works (the root is resolved too)', () => {
    const alias = path.join(root, 'store-alias');
    symlinkSync(store, alias);
    expect(loadEnvironment('tiny', alias).hash).toBe(env.hash);
  });
});

describe('environment names at the sandbox.exec job payload', () => {
  it('refuses crafted names and keeps the default', () => {
    for (const name of CRAFTED_NAMES) {
      const r = sandboxExecPayload.safeParse({ cmd: ['true'], env: name });
      expect(r.success, name).toBe(false);
      expect(r.error!.issues[0]!.message).toMatch(/environment names are 1-63 characters/);
    }
    expect(sandboxExecPayload.parse({ cmd: ['true'] }).env).toBe('default');
  });
});

describe('environment names at the CLI', () => {
  const repo = path.resolve(import.meta.dirname, '../../..');
  const crucible = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(repo, 'scripts/crucible.mjs'), ...args],
        {
          cwd: repo,
          env: childEnv({ CRUCIBLE_DATA_DIR: root, CRUCIBLE_ENV_STORE: store, DATABASE_URL: '' }),
        },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });

  it('sandbox exec --env, env verify NAME and env build --name refuse crafted names with the rule (exit 2)', async () => {
    const runs = await Promise.all([
      crucible(['sandbox', 'exec', '--env', '../../planted/x', '--json', '--', 'true']),
      crucible(['sandbox', 'exec', '--env', '/', '--', 'true']),
      crucible(['env', 'verify', '../../planted/x']),
      crucible(['env', 'verify', 'Tiny']),
      crucible(['env', 'build', '--name', 'a/../../evil', '--include', '/usr/bin/true']),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/invalid environment name ".*": environment names are 1-63 characters/);
    }
    const ok = await crucible(['env', 'verify', 'tiny', '--fast']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
