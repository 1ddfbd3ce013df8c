import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { SandboxError } from '../types';
import { buildEnvironment, type EnvSpecInput } from './env-build';
import type { Environment } from './env-manifest';
import { environmentBuilt, loadEnvironment } from './env-store';

/**
 * The built-in environments (`default`, `repo`): specs of ours from this host's toolchain,
 * built into a store on first use.
 */

/** The default environment: sh + coreutils and friends, python3 (stdlib) and node. */
export function defaultEnvSpec(): EnvSpecInput {
  // the host's python3 (e.g. python3.11) with its stdlib directory of the same name
  let py = 'python3.11';
  try {
    py = path.basename(realpathSync('/usr/bin/python3'));
  } catch {
    /* no python3 on this host: the environment just lacks it */
  }
  const pyLib = `/usr/lib/${py}`;
  const include = new Set<string>(['/usr/bin/sh', '/usr/bin/dash', '/usr/bin/python3', `/usr/bin/${py}`, pyLib, '/usr/bin/node']);
  const coreutils = [
    '[',
    'basename',
    'cat',
    'chmod',
    'cp',
    'cut',
    'date',
    'dd',
    'df',
    'dirname',
    'du',
    'echo',
    'env',
    'expr',
    'false',
    'head',
    'id',
    'kill',
    'ln',
    'ls',
    'mkdir',
    'mktemp',
    'mv',
    'nohup',
    'nproc',
    'printf',
    'pwd',
    'readlink',
    'realpath',
    'rm',
    'rmdir',
    'seq',
    'sha256sum',
    'sleep',
    'sort',
    'stat',
    'tail',
    'tee',
    'test',
    'timeout',
    'touch',
    'tr',
    'true',
    'uname',
    'uniq',
    'wc',
    'whoami',
    'yes',
    'grep',
    'sed',
    'setsid',
    'find',
    'xargs',
    'ps',
  ];
  for (const c of coreutils) if (existsSync(`/usr/bin/${c}`)) include.add(`/usr/bin/${c}`);
  return {
    name: 'default',
    include: [...include].filter(existsSync),
    exclude: [`${pyLib}/test`, `${pyLib}/idlelib`, `${pyLib}/tkinter`, `${pyLib}/turtledemo`, `${pyLib}/ensurepip`, 'dist-packages'],
    files: {
      '/etc/passwd': 'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/work:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n',
      '/etc/group': 'root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n',
      '/etc/hosts': '127.0.0.1 localhost sandbox\n::1 localhost\n',
      '/etc/nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
      '/etc/resolv.conf': '',
    },
  };
}

/**
 * Debian's pytest (`python3-pytest`) and what it imports, for repository tasks. Only these
 * entries of /usr/lib/python3/dist-packages go in (never the whole directory: its .pth files
 * would run at every interpreter start). Missing on the host: the environment lacks pytest.
 */
const PYTEST_MODULES = ['pytest', '_pytest', 'pluggy', 'iniconfig', 'packaging', 'attr', 'attrs', 'py.py'];
const PYTEST_METADATA = /^(pytest|pluggy|iniconfig|packaging|attrs)-[^/]*\.(dist-info|egg-info)$/;

/**
 * The `repo` environment (REPO_DEFAULT_ENVIRONMENT): the default toolchain plus pytest and git,
 * for repository tasks. git is the one binary (its shared libraries come by ldd): status, diff,
 * log, stash, add, commit, restore and checkout are built into it; nothing of /usr/lib/git-core
 * (remote helpers, the daemon) and no templates (the agent's `.git` is made with an empty one).
 */
export function repoEnvSpec(): EnvSpecInput {
  const base = defaultEnvSpec();
  const dist = '/usr/lib/python3/dist-packages';
  const names = existsSync(dist) ? readdirSync(dist) : [];
  // module dirs plus their metadata (pytest finds its plugins through entry points in it)
  const pytest = names.filter((n) => PYTEST_MODULES.includes(n) || PYTEST_METADATA.test(n)).map((n) => `${dist}/${n}`);
  const pyLib = (base.include ?? []).find((p) => /^\/usr\/lib\/python3\.\d+$/.test(p));
  return {
    ...base,
    name: 'repo',
    include: [...(base.include ?? []), ...pytest, ...(existsSync('/usr/bin/git') ? ['/usr/bin/git'] : [])],
    toolchain: ['sh', 'python3', 'node', 'gcc', 'git'],
    // the default leaves every dist-packages out; here only the interpreter's own one stays out
    exclude: [...(base.exclude ?? []).filter((x) => x !== 'dist-packages'), ...(pyLib ? [`${pyLib}/dist-packages`] : [])],
  };
}

/** Environments built from a spec of ours on first use. */
const BUILT_IN_SPECS: Record<string, () => EnvSpecInput> = { default: defaultEnvSpec, repo: repoEnvSpec };

/** A built-in environment (`default`, `repo`), built on first use. */
export function ensureBuiltInEnvironment(name: string, storeDir: string): Environment {
  const spec = BUILT_IN_SPECS[name];
  if (environmentBuilt(name, storeDir)) {
    const env = loadEnvironment(name, storeDir);
    // built before its spec grew (git joined `repo`): rebuilt once, so the store catches up with the spec
    if (!spec || !missingIncludes(spec(), env.rootfs).length) return env;
  }
  if (!spec) throw new SandboxError(`environment "${name}" is not built in; built-in ones are ${Object.keys(BUILT_IN_SPECS).join(', ')}`, 'config');
  return buildEnvironment(spec(), storeDir);
}

/** Host paths a spec includes that exist on this host but not in a built root (a build from an older spec). */
export function missingIncludes(spec: EnvSpecInput, rootfs: string): string[] {
  return (spec.include ?? []).filter((p) => existsSync(p) && !lstatSync(path.join(rootfs, p), { throwIfNoEntry: false }));
}

/** The spec of a built-in environment, or undefined. */
export function builtInEnvSpec(name: string): EnvSpecInput | undefined {
  return BUILT_IN_SPECS[name]?.();
}

/** The default environment, built on first use. */
export function ensureDefaultEnvironment(storeDir: string): Environment {
  return ensureBuiltInEnvironment('default', storeDir);
}

export function resolveEnvironment(name: string, storeDir: string): Environment {
  return Object.hasOwn(BUILT_IN_SPECS, name) ? ensureBuiltInEnvironment(name, storeDir) : loadEnvironment(name, storeDir);
}
