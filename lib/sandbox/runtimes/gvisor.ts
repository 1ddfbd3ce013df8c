import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sandboxEnv } from './sandbox-env';
import type { CgroupLimits } from '../limits/cgroup';
import { gvisorHost, type GvisorHost, type GvisorPlatform } from './gvisor-platform';
import { OCI_HOST_ID_BASE, OCI_SANDBOX_UID, OCI_SUPERVISOR_MOUNT, ociConfig } from './oci-config';
import type { RuntimeOptions } from './options';
import type { LaunchContext, Launched, Sandbox, SandboxRuntime, SandboxSpec } from './sandbox-runtime';
import { SupervisedSandbox, type SupervisorStart } from './supervised-sandbox';
import { SupervisorChannel, childHost, supervisorBinary } from './supervisor';
import { SandboxError, type Enforcement, type ExecOptions, type ExecResult, type Limits } from '../types';
import { namespacedEnforcement } from './enforcement';

const CONTAINER_PREFIX = 'crucible-';
const SUPERVISOR_NAME = 'crucible-supervisor';
/**
 * gVisor's own processes (runsc, the sentry, the gofer and, on ptrace, one stub process
 * per address space, each with several threads) share the sandbox's host cgroup, and pids
 * counts threads: ~110 idle here, ~6 more per process inside. The sandbox's own pids limit
 * is enforced by gVisor's kernel (RLIMIT_NPROC, oci-config.ts); the host group gets room
 * for gVisor on top of it, still a hard ceiling for the host.
 */
const HOST_PIDS_BASE = 512;
const HOST_PIDS_PER_PROCESS = 16;

const install = "`apt-get install runsc` (Debian's gVisor package; `bash scripts/system-deps.sh` does it) or https://gvisor.dev/docs/user_guide/install/";

/**
 * gVisor (`gvisor`, alias `oci:runsc`): the same OCI bundle as runc/crun (read-only root,
 * scratch at /work and /tmp, no capabilities, the seccomp policy), run by runsc, so the
 * program talks to gVisor's user-space kernel (the sentry) instead of the host's. Network
 * off (`--network=none`: loopback only, inside the sentry), the platform that works here
 * (gvisor-platform.ts), and runsc's processes in the sandbox's cgroup (`--ignore-cgroups`),
 * where our limits, counters and kills cover them.
 */
export class GvisorRuntime implements SandboxRuntime {
  readonly name = 'gvisor';
  readonly binary: string;
  constructor(readonly options: RuntimeOptions) {
    this.binary = options.runsc;
  }

  /** runsc's version and the platform that works here (probed once per process). */
  host(): GvisorHost {
    try {
      return gvisorHost(this.binary);
    } catch (e) {
      throw new SandboxError(
        `the gvisor runtime (oci:runsc) needs gVisor's \`runsc\`: \`${this.binary}\` is not installed or not runnable (${(e as Error).message}). ` +
          `Install it with ${install}, or choose another --runtime (bwrap, oci:runc).`,
        'missing_runtime',
      );
    }
  }

  check(): void {
    const h = this.host();
    if (process.getuid?.() !== 0)
      throw new SandboxError('gvisor sandboxes need root (rootless runsc is not supported yet); use --runtime bwrap', 'missing_runtime');
    if (!h.platform) {
      throw new SandboxError(
        `gVisor (runsc ${h.version}) cannot start a sandbox on any platform here: ${h.probes.map((p) => `${p.platform}: ${p.reason}`).join('; ')}. ` +
          'Choose another --runtime (bwrap, oci:runc); nothing falls back to a weaker one.',
        'missing_runtime',
      );
    }
  }

  /** What `crucible sandbox runtimes` shows besides what it enforces. */
  details(): { version: string; platform?: GvisorPlatform; platforms: GvisorHost['probes'] } {
    const h = this.host();
    return { version: h.version, platform: h.platform, platforms: h.probes };
  }

  enforces(): Enforcement {
    // pids: gVisor's kernel counts the sandbox's processes (RLIMIT_NPROC); the host group caps gVisor's threads too
    return namespacedEnforcement({
      disk: 'tmpfs-size',
      hostUid: 65534, // runsc runs its sentry as nobody, in namespaces of its own
      kernel: 'gvisor',
    });
  }

  create(spec: SandboxSpec): Sandbox {
    if (spec.allow?.length) {
      throw new SandboxError('--allow (egress allow-list) is implemented for the bwrap runtime only; gvisor sandboxes have no network but loopback', 'config');
    }
    const platform = this.host().platform;
    if (!platform) this.check(); // throws, saying why no platform works (before any state is created)
    return new GvisorSandbox(this, platform!, {
      ...spec,
      // files the sandbox writes land on the host as the container uid mapped (101000), as with OCI
      hostUid: spec.hostUid ?? OCI_HOST_ID_BASE + OCI_SANDBOX_UID,
      hostGid: spec.hostGid ?? OCI_HOST_ID_BASE + OCI_SANDBOX_UID,
    });
  }
}

const supervisorDirs = new Map<string, string | undefined>();

/**
 * A directory holding only the supervisor, next to the compiled binary, bound read-only
 * at /run in warm sandboxes (the store's bin/ also holds the launcher). Undefined when it
 * cannot be made: sandboxes then run one runsc per exec.
 */
function supervisorDirFor(binary: string): string | undefined {
  if (supervisorDirs.has(binary)) return supervisorDirs.get(binary);
  const dir = `${binary}.gvisor`;
  let result: string | undefined = dir;
  try {
    if (!existsSync(path.join(dir, SUPERVISOR_NAME))) {
      const tmp = `${dir}.${process.pid}.tmp`;
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { mode: 0o755 });
      copyFileSync(binary, path.join(tmp, SUPERVISOR_NAME));
      chmodSync(path.join(tmp, SUPERVISOR_NAME), 0o755);
      try {
        renameSync(tmp, dir);
      } catch {
        rmSync(tmp, { recursive: true, force: true }); // a concurrent builder got there first
      }
    }
    if (!existsSync(path.join(dir, SUPERVISOR_NAME))) result = undefined;
  } catch {
    result = undefined;
  }
  supervisorDirs.set(binary, result);
  return result;
}

/** runsc's own fatal log lines: `W1204 13:15:59.762664   21084 util.go:64] FATAL ERROR: <message>`. */
const FATAL_LINE = /^[WEF]\d{4} [\d:.]+\s+\d+ [\w.-]+:\d+\] FATAL ERROR: (.*)$/;

/** The messages of runsc's fatal lines in a text, without repeats. */
function fatalLines(text: string): string | undefined {
  const messages = text
    .split('\n')
    .map((l) => FATAL_LINE.exec(l)?.[1]?.trim())
    .filter((m): m is string => !!m);
  const all = [...new Set(messages)].join('; ');
  return all ? all.slice(0, 2000) : undefined;
}

/**
 * Did runsc itself fail, and why? Only runsc writes its logs (`--debug-log`): the `run`
 * process's log holds nothing the sandbox controls, so a fatal line there is the verdict;
 * the cause is usually in the sandbox's (boot) and gofer's logs, read for the message only
 * (the boot log also records the command line, which sandboxed code may control). On the
 * per-exec path runsc's stderr is the command's too, so it is never read for this.
 */
function runscFailure(logDir: string): string | undefined {
  let files: string[];
  try {
    files = readdirSync(logDir);
  } catch {
    return undefined;
  }
  const read = (suffix: string) =>
    files
      .filter((f) => f.endsWith(suffix))
      .map((f) => {
        try {
          return readFileSync(path.join(logDir, f), 'utf8');
        } catch {
          return ''; // removed meanwhile
        }
      })
      .join('\n');
  const verdict = fatalLines(read('.run.txt'));
  if (!verdict) return undefined;
  return fatalLines(`${read('.boot.txt')}\n${read('.gofer.txt')}\n${read('.run.txt')}`);
}

/**
 * A gVisor sandbox. Warm (the default, where the supervisor can be built): one `runsc run`
 * per sandbox with the supervisor (supervisor.c) as the container's PID 1, and each exec a
 * request to it over the container's stdin/stdout, as with bwrap, so only the first start
 * pays gVisor's boot. Without the supervisor: one `runsc run` per exec.
 */
export class GvisorSandbox extends SupervisedSandbox {
  readonly platform: GvisorPlatform;
  /** set when this sandbox runs warm */
  private readonly supervisorDir?: string;
  private generation = 0;
  /** the per-exec path: runsc's own error for the last exec, if it failed before the command ran */
  private runtimeError?: string;

  constructor(
    readonly runtime: GvisorRuntime,
    platform: GvisorPlatform,
    spec: SandboxSpec,
  ) {
    super('gvisor', spec, runtime.options);
    this.platform = platform;
    const binary = supervisorBinary(path.dirname(spec.env.dir), runtime.options);
    this.supervisorDir = binary && supervisorDirFor(binary);
    if (this.supervisorDir) this.starting = this.startSupervised();
  }

  /** True when execs go to a long-lived container instead of a new runsc each. */
  override get warm(): boolean {
    return this.supervisorDir !== undefined;
  }

  protected override hostGroupLimits(limits: Limits): CgroupLimits {
    return { ...limits, pids: HOST_PIDS_BASE + HOST_PIDS_PER_PROCESS * limits.pids };
  }

  /** Every result says which platform gVisor's kernel ran on. */
  override async exec(cmd: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return { ...(await super.exec(cmd, opts)), platform: this.platform };
  }

  /**
   * No host process of a warm gVisor sandbox is a command: sandboxed processes are tasks
   * of gVisor's kernel. Every process in its group (runsc, sentry, gofer, ptrace stubs,
   * which gVisor pools) is the sandbox itself; commands are killed from inside, by the
   * supervisor.
   */
  override residentPids(): number[] {
    return this.channel?.alive ? this.cgroup.pids() : [];
  }

  private containerId(tag: string | number): string {
    return `${CONTAINER_PREFIX}${path.basename(this.dir)}-${tag}`;
  }

  /**
   * runsc, started inside the sandbox's cgroups (a tiny sh joins them first, so nothing it
   * starts is born outside) and killed with this process (setpriv's parent-death signal;
   * runsc kills its sandbox when it dies, `run` being attached).
   */
  private spawnRunsc(logDir: string, args: string[]): ChildProcess {
    const procs = this.cgroup.dirs.map((d) => path.join(d, 'cgroup.procs')).join(' ');
    const flags = [
      `--root=${path.join(this.dir, 'runsc')}`,
      `--platform=${this.platform}`,
      '--network=none',
      '--ignore-cgroups',
      '--oci-seccomp',
      `--debug-log=${logDir}/`, // its own errors (the sandbox's and gofer's too), for sandbox_error
    ];
    return spawn(
      '/bin/sh',
      [
        '-c',
        'for p in $CRUCIBLE_CGROUP_PROCS; do echo $$ > "$p" || exit 125; done; exec "$@"',
        'crucible-gvisor',
        'setpriv',
        '--pdeathsig',
        'KILL',
        '--',
        this.runtime.binary,
        ...flags,
        ...args,
      ],
      {
        cwd: '/',
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', CRUCIBLE_CGROUP_PROCS: procs } as unknown as NodeJS.ProcessEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
  }

  private bundle(tag: string | number, cmd: string[], env: Record<string, string>, cwd: string, supervised: boolean): string {
    const dir = path.join(this.dir, `bundle-${tag}`);
    mkdirSync(dir, { mode: 0o755 });
    const config = ociConfig({
      // the store's rootfs itself, not the scratch's view of it: runsc's gofer remounts its
      // root read-only inside a user namespace, which the view's locked nosuid/nodev refuse
      // (EPERM). gVisor's mount table shows no host path either way (its own 9p root), and
      // rootViewStale still notices a rebuilt store, which restarts the sandbox.
      rootfs: this.spec.env.rootfs,
      work: this.scratch.work,
      tmp: this.scratch.tmp,
      cmd,
      env,
      cwd,
      limits: this.spec.limits,
      cgroupsPath: `c-${tag}`, // unused: --ignore-cgroups keeps runsc in the sandbox's group
      gvisor: true,
      supervisorDir: supervised ? this.supervisorDir : undefined,
    });
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
    return dir;
  }

  /**
   * Boot the container with the supervisor as PID 1 once the environment check passed
   * (bwrap overlaps them with --block-fd; runsc `run` has no such hold, and the check is
   * small next to gVisor's boot).
   */
  protected override startSupervised(): Promise<SupervisorStart> {
    const ready = this.readyToBoot(); // the bundle binds the scratch directories
    return (async (): Promise<SupervisorStart> => {
      const refused = await ready;
      if (refused) return refused;
      const gen = ++this.generation;
      const logDir = path.join(this.dir, `runsc-log-${gen}`);
      let child: ChildProcess;
      try {
        const bundle = this.bundle(
          gen,
          [`${OCI_SUPERVISOR_MOUNT}/${SUPERVISOR_NAME}`, '--user', `${OCI_SANDBOX_UID}:${OCI_SANDBOX_UID}`],
          sandboxEnv(),
          '/',
          true,
        );
        child = this.spawnRunsc(logDir, ['run', '--bundle', bundle, this.containerId(gen)]);
      } catch (e) {
        return { error: `cannot start runsc: ${(e as Error).message}` };
      }
      // runsc's last words on stderr name only the step that failed; its logs hold the cause.
      // Its stderr is its own here (commands' output goes through the supervisor's frames),
      // so a failure before its logs exist (a flag it refuses) is read from there
      const host = childHost(child, (stderr) => {
        const text = stderr.trim();
        const logged = runscFailure(logDir) ?? fatalLines(text);
        return logged ? `gVisor (runsc) failed: ${logged}` : text;
      });
      const channel = new SupervisorChannel(host, child.stdin!, child.stdout!);
      this.channel = channel;
      return { channel };
    })();
  }

  /** Tear the container down (all of gVisor lives in the sandbox's group); the next exec boots a fresh one. */
  protected override restart(): void {
    this.channel?.close();
    this.channel = undefined;
    this.starting = undefined;
    this.cgroup.killAll();
    for (const name of readdirSync(this.dir)) {
      if (/^(bundle-|runsc-log-)/.test(name) || name === 'runsc') rmSync(path.join(this.dir, name), { recursive: true, force: true });
    }
  }

  /**
   * A lost container (runsc failed, the sentry was OOM-killed: it holds the sandbox's
   * memory, or torn down after a timeout) boots again now, for the next exec.
   */
  protected override afterLoss(): void {
    this.starting = this.startSupervised();
  }

  protected override onDestroy(): void {
    this.channel?.close();
    this.channel = undefined;
  }

  /** The per-exec path (no supervisor): one `runsc run` with the command as the container's process. */
  protected launch(ctx: LaunchContext): Launched {
    const tag = ctx.execId;
    const logDir = path.join(this.dir, `runsc-log-${tag}`);
    const bundle = this.bundle(tag, ctx.cmd, sandboxEnv(ctx.opts.env), ctx.opts.cwd ?? '/work', false);
    this.runtimeError = undefined;
    const child = this.spawnRunsc(logDir, ['run', '--bundle', bundle, this.containerId(tag)]);
    return {
      child,
      ready: Promise.resolve(),
      cleanup: () => {
        this.runtimeError = runscFailure(logDir);
        for (const d of [bundle, logDir, path.join(this.dir, 'runsc')]) rmSync(d, { recursive: true, force: true });
      },
    };
  }

  protected setupFailure(code: number | null, _stderr: string): string | undefined {
    if (code === 125) return 'could not join the sandbox cgroup';
    // a command's own exit code can be anything, 128 included; runsc's failures are in its log
    if (code !== 0 && this.runtimeError) return `gVisor (runsc) failed to start the sandbox: ${this.runtimeError}`;
    return undefined;
  }
}
