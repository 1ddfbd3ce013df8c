import { spawnSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { environmentNameProblem } from '@/core/environments';
import { PROBED_RUNTIME_NAMES, sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { recordEnvironment, recordVerification } from '@/server/environments/registry';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import { buildEnvironment, envSpecSchema, type EnvSpecInput } from '@/lib/sandbox/env/env-build';
import { builtInEnvSpec, defaultEnvSpec, resolveEnvironment } from '@/lib/sandbox/env/env-builtin';
import { listEnvironments } from '@/lib/sandbox/env/env-store';
import { verifyEnvironmentFast, verifyEnvironmentFull } from '@/lib/sandbox/env/env-verify';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { BwrapRuntime } from '@/lib/sandbox/runtimes/bwrap';
import { GvisorRuntime } from '@/lib/sandbox/runtimes/gvisor';
import { MicrovmRuntime } from '@/lib/sandbox/runtimes/microvm';
import { OciRuntime } from '@/lib/sandbox/runtimes/oci';
import { runtimeByName } from '@/lib/sandbox/runtimes/runtime-by-name';
import type { SandboxRuntime } from '@/lib/sandbox/runtimes/sandbox-runtime';
import { sweepDeadSandboxes } from '@/lib/sandbox/pool/sweep';
import { SandboxError, allowEntry, limitsSchema, type LimitsInput } from '@/lib/sandbox/types';
import { CliError, intOption, output, type Command } from './args';
import { table } from './format';
import { terminalSafe } from './terminal-safe';
import { dataDir, envStoreDir } from '@/db/open-database';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * The database when one is already there (DATABASE_URL, or a running Crucible's
 * runtime.json); sandbox commands never start an embedded server just to audit.
 */
async function reachableDatabase(): Promise<Db | undefined> {
  if (!settings().DATABASE_URL && !existsSync(path.join(dataDir(), 'runtime.json'))) return undefined;
  try {
    // loaded only when a database is there: sandbox commands without one stay light
    const { cliDatabase } = await import('./database');
    return (await cliDatabase()).db;
  } catch {
    return undefined;
  }
}

/** SandboxErrors become CLI errors: exit 3 for a missing runtime, 2 for bad input. */
async function cli<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof SandboxError) throw new CliError(e.message, e.kind === 'missing_runtime' ? 3 : e.kind === 'config' ? 2 : 1);
    if (e && typeof e === 'object' && 'issues' in e) {
      const issues = (e as { issues: { path: PropertyKey[]; message: string }[] }).issues;
      throw new CliError(issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; '));
    }
    throw e;
  }
}

/** An environment name from the command line, refused (exit 2) before it reaches the store. */
function envNameArg(name: string, what: string): string {
  const problem = environmentNameProblem(name);
  if (problem) throw new CliError(`${what}: ${problem}`);
  return name;
}

/** A runtime name from the command line: one of the fixed list (exit 2 with the list otherwise). */
function runtimeArg(name: string): string {
  const r = sandboxRuntimeName.safeParse(name);
  if (!r.success) throw new CliError(`--runtime: ${r.error.issues[0]!.message}`);
  return r.data;
}

const EXEC_USAGE =
  'crucible sandbox exec [--runtime bwrap|oci|NAME] [--env NAME] [--timeout-ms N] [--memory-mb N] [--cpus N] [--disk-mb N] ' +
  '[--pids N] [--allow HOST:PORT]... [--file SRC:DEST]... [--json] -- CMD [ARGS...]';

const exec: Command = {
  name: 'sandbox exec',
  summary: 'run one command in a fresh sandbox and print the result (exit 0 whenever the sandbox ran)',
  usage: EXEC_USAGE,
  allowPositionals: false,
  options: {
    runtime: { type: 'string' },
    env: { type: 'string' },
    'timeout-ms': { type: 'string' },
    'memory-mb': { type: 'string' },
    cpus: { type: 'string' },
    'disk-mb': { type: 'string' },
    pids: { type: 'string' },
    'output-bytes': { type: 'string' },
    allow: { type: 'string', multiple: true },
    file: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  },
  run: ({ values, rest }) =>
    cli(async () => {
      if (rest.length === 0) throw new CliError(`no command given: put it after \`--\`\nusage: ${EXEC_USAGE}`);
      const limits: LimitsInput = {};
      const set = (k: keyof LimitsInput, flag: string) => {
        const n = intOption(values[flag], flag);
        if (n !== undefined) (limits as Record<string, number>)[k] = n;
      };
      set('timeoutMs', 'timeout-ms');
      set('memoryMb', 'memory-mb');
      set('cpus', 'cpus');
      set('diskMb', 'disk-mb');
      set('pids', 'pids');
      set('outputBytes', 'output-bytes');
      const parsed = limitsSchema.safeParse(limits);
      if (!parsed.success) throw new CliError(parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('; '));
      const allow = ((values.allow as string[] | undefined) ?? []).map((a) => {
        const r = allowEntry.safeParse(a);
        if (!r.success) throw new CliError(`--allow ${a}: ${r.error.issues[0]!.message}`);
        return a;
      });
      const files = ((values.file as string[] | undefined) ?? []).map((f) => {
        const i = f.lastIndexOf(':');
        if (i <= 0 || i === f.length - 1) throw new CliError(`--file ${f}: expected SRC:DEST, e.g. ./test.py:/work/test.py`);
        const src = f.slice(0, i);
        if (!existsSync(src)) throw new CliError(`--file ${f}: ${src} does not exist`);
        return { dest: f.slice(i + 1), data: readFileSync(src) };
      });
      const db = await reachableDatabase();
      const manager = new SandboxManager({
        dataDir: dataDir(),
        storeDir: envStoreDir(),
        runtime: runtimeOptions(settings()),
        records: db && sandboxRecords(db),
        actor: 'cli',
        maxIdlePerKey: 0,
      });
      try {
        const result = await manager.exec(
          {
            runtime: runtimeArg((values.runtime as string | undefined) ?? 'bwrap'),
            env: envNameArg((values.env as string | undefined) ?? 'default', '--env'),
            limits,
            allow,
            files,
          },
          rest,
        );
        if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
        else {
          // Human mode shows what sandboxed code wrote: terminal-safe (--json has the exact bytes).
          process.stdout.write(terminalSafe(result.stdout));
          process.stderr.write(terminalSafe(result.stderr));
          const trunc = result.stdoutTruncated || result.stderrTruncated ? ' (output truncated)' : '';
          process.stderr.write(
            terminalSafe(
              `crucible: ${result.status} exit=${result.exitCode ?? '-'} signal=${result.signal ?? '-'} ${result.durationMs} ms, ` +
                `${result.runtime}, env ${result.envHash}${trunc}${result.error ? `\n${result.error}` : ''}\n`,
            ),
          );
        }
        return 0;
      } finally {
        await manager.close();
      }
    }),
};

/** First line of `BINARY --version` for bwrap and OCI runtimes; gVisor reports its own. */
function runtimeVersion(rt: SandboxRuntime): string | undefined {
  if (rt instanceof GvisorRuntime || rt instanceof MicrovmRuntime) return rt.details().version;
  const binary = rt instanceof BwrapRuntime || rt instanceof OciRuntime ? rt.binary : undefined;
  if (!binary) return undefined;
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : undefined;
}

function gvisorDetails(rt: GvisorRuntime): { version?: string; platform?: string; platforms?: ReturnType<GvisorRuntime['details']>['platforms'] } {
  try {
    return rt.details();
  } catch {
    return {}; // runsc itself is missing: check() says what to install
  }
}

/** microvm: QEMU's version, the guest kernel, and the accelerator that runs (`platform`: kvm or tcg), with why KVM is not used. */
function microvmDetails(rt: MicrovmRuntime): {
  version?: string;
  kernel?: string;
  platform?: string;
  accels?: ReturnType<MicrovmRuntime['details']>['accels'];
} {
  try {
    const d = rt.details();
    return { version: d.version, kernel: d.kernel, platform: d.accel, accels: d.accels };
  } catch {
    return {}; // QEMU or the kernel is missing: check() says what to install
  }
}

const runtimes: Command = {
  name: 'sandbox runtimes',
  summary: 'which runtimes work here (versions; for gVisor the platform, for microvm the accelerator that runs) and what each enforces, or why not',
  usage: 'crucible sandbox runtimes [--json]',
  options: { json: { type: 'boolean' } },
  run: async ({ values }) => {
    const rows = PROBED_RUNTIME_NAMES.map((name) => {
      const rt = runtimeByName(name, runtimeOptions(settings()));
      // gVisor: its version and which platform (ptrace, systrap, kvm) works here, each with why not;
      // microvm: the accelerator (kvm or tcg) as its platform, with why KVM is not used
      const gvisor = rt instanceof GvisorRuntime ? gvisorDetails(rt) : rt instanceof MicrovmRuntime ? microvmDetails(rt) : {};
      try {
        rt.check();
        return { name, available: true, version: runtimeVersion(rt), ...gvisor, enforces: rt.enforces() };
      } catch (e) {
        return { name, available: false, ...gvisor, reason: (e as Error).message };
      }
    });
    output(!!values.json, rows, () =>
      table(
        rows.map((r) => ({
          ...r,
          version: r.version ?? '',
          platform: r.platform ?? '',
          detail: 'enforces' in r ? JSON.stringify(r.enforces) : r.reason,
        })),
        ['name', 'available', 'version', 'platform', 'detail'],
      ),
    );
    return 0;
  },
};

const sweep: Command = {
  name: 'sandbox sweep',
  summary: 'remove what dead workers left behind (processes, containers, mounts, directories)',
  usage: 'crucible sandbox sweep [--json]',
  options: { json: { type: 'boolean' } },
  run: async ({ values }) => {
    const r = sweepDeadSandboxes(dataDir());
    output(
      !!values.json,
      r,
      () => `swept ${r.cgroups.length} cgroups, ${r.containers.length} containers, ${r.mounts.length} mounts, ${r.dirs.length} directories`,
    );
    return 0;
  },
};

function specFrom(values: Record<string, unknown>, positionals: string[]): EnvSpecInput {
  const arg = positionals[0];
  if (arg === 'default') return defaultEnvSpec();
  const builtIn = arg ? builtInEnvSpec(arg) : undefined; // `repo`: the default plus Debian's pytest
  if (builtIn && !existsSync(arg!)) return builtIn;
  if (arg) {
    if (!existsSync(arg)) throw new CliError(`spec file ${arg} not found (give a JSON spec, \`default\`, or --name/--include/--tarball)`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(arg, 'utf8'));
    } catch (e) {
      throw new CliError(`spec file ${arg} is not valid JSON: ${(e as Error).message}`);
    }
    const r = envSpecSchema.safeParse(raw);
    if (!r.success) throw new CliError(`spec file ${arg}: ${r.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`).join('; ')}`);
    const base = path.dirname(path.resolve(arg));
    return { ...r.data, tarball: r.data.tarball ? path.resolve(base, r.data.tarball) : undefined };
  }
  if (!values.name) throw new CliError('give a SPEC file, `default`, or --name NAME with --include PATH... and/or --tarball FILE');
  return {
    name: envNameArg(values.name as string, '--name'),
    include: (values.include as string[] | undefined) ?? [],
    tarball: values.tarball as string | undefined,
  };
}

const envBuild: Command = {
  name: 'env build',
  summary: 'build an immutable, content-addressed environment from a spec (host paths or a tarball)',
  usage: 'crucible env build SPEC.json|default|repo | --name NAME [--include PATH]... [--tarball FILE] [--json]',
  options: { name: { type: 'string' }, include: { type: 'string', multiple: true }, tarball: { type: 'string' }, json: { type: 'boolean' } },
  run: ({ values, positionals }) =>
    cli(async () => {
      const env = buildEnvironment(specFrom(values, positionals), envStoreDir());
      const db = await reachableDatabase();
      if (db) await recordEnvironment(db, env);
      output(
        !!values.json,
        { ...env, recorded: !!db },
        () => `built ${env.name} ${env.hash}\n${env.fileCount} files, ${(env.totalBytes / 1e6).toFixed(1)} MB\ntoolchain: ${JSON.stringify(env.toolchainLock)}`,
      );
      return 0;
    }),
};

const envVerify: Command = {
  name: 'env verify',
  summary: 're-hash every file of an environment against its manifest (exit 1 on mismatch)',
  usage: 'crucible env verify NAME [--fast] [--json]',
  options: { fast: { type: 'boolean' }, json: { type: 'boolean' } },
  run: ({ values, positionals }) =>
    cli(async () => {
      const name = positionals[0];
      if (!name) throw new CliError('usage: crucible env verify NAME [--fast] [--json]');
      envNameArg(name, 'env verify');
      const env = resolveEnvironment(name, envStoreDir());
      const v = values.fast ? verifyEnvironmentFast(env) : verifyEnvironmentFull(env);
      const db = await reachableDatabase();
      if (db) await recordVerification(db, env, v);
      output(!!values.json, { name, hash: env.hash, ...v }, () =>
        v.ok ? `${name} ${env.hash}: ok (${v.mode}, ${v.durationMs.toFixed(0)} ms)` : `${name} ${env.hash}: MISMATCH\n${v.problems.join('\n')}`,
      );
      return v.ok ? 0 : 1;
    }),
};

const envList: Command = {
  name: 'env list',
  summary: 'list built environments',
  usage: 'crucible env list [--json]',
  options: { json: { type: 'boolean' } },
  run: async ({ values }) => {
    const envs = listEnvironments(envStoreDir());
    output(!!values.json, envs, () =>
      table(
        envs.map((e) => ({ ...e, toolchain: JSON.stringify(e.toolchainLock) })),
        ['name', 'hash', 'fileCount', 'totalBytes', 'toolchain'],
      ),
    );
    return 0;
  },
};

export const sandboxCommands: Command[] = [exec, runtimes, sweep];
export const envCommands: Command[] = [envBuild, envVerify, envList];
