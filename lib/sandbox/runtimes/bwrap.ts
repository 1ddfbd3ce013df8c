import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

import { EgressProxy, FORWARDER, PROXY_PORT } from './egress';
import { compileSeccompFilter } from './seccomp';
import type { LaunchContext, Launched, Sandbox, SandboxRuntime, SandboxSpec } from './sandbox-runtime';
import { sandboxEnv } from './sandbox-env';
import { SupervisedSandbox, type SupervisorStart } from './supervised-sandbox';
import { sharedLauncher, type Launcher } from './launcher';
import type { RuntimeOptions } from './options';
import { SupervisorChannel, childHost, supervisorBinary, type SupervisorHost } from './supervisor';
import { SandboxError, type Enforcement } from '../types';
import { namespacedEnforcement } from './enforcement';

export { sandboxEnv };

/** bwrap started and held on --block-fd, its child's pid known; go() lets the supervisor start. */
type Held =
  | { host: SupervisorHost; input: Writable; output: Readable; pid?: number; childPid: number; confined?: boolean; go: () => void }
  | { error: string; host?: SupervisorHost };

const SANDBOX_UID = 1000;

/**
 * bubblewrap: every namespace unshared (user, pid, net, mount, ipc, uts, cgroup), the
 * environment's rootfs bound read-only as `/`, scratch bound at /work and /tmp, a fresh
 * /proc and minimal /dev, --die-with-parent, --new-session, our seccomp filter, and
 * bwrap itself started as an unprivileged host uid so the sandbox maps to nobody.
 * The command is held (`--block-fd`) until bwrap's processes are in the cgroup.
 */
export class BwrapRuntime implements SandboxRuntime {
  readonly name = 'bwrap';
  readonly binary: string;
  constructor(readonly options: RuntimeOptions) {
    this.binary = options.bwrap;
  }

  check(): void {
    const r = spawnSync(this.binary, ['--version'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      throw new SandboxError(
        `the bwrap runtime needs bubblewrap: \`${this.binary}\` is not installed or not runnable (${r.error?.message ?? r.stderr.trim()}). ` +
          'Install it with `apt-get install bubblewrap` (or `bash scripts/system-deps.sh`), or choose another --runtime.',
        'missing_runtime',
      );
    }
  }

  enforces(): Enforcement {
    return namespacedEnforcement({
      disk: process.getuid?.() === 0 ? 'tmpfs-size' : 'none',
      hostUid: process.getuid?.() === 0 ? 65534 : process.getuid!(),
    });
  }

  create(spec: SandboxSpec): Sandbox {
    return new BwrapSandbox(this, spec);
  }
}

const searchable = new Set<string>();

/** bwrap runs as the sandbox's host uid, which must be able to reach the paths it binds. */
function assertSearchable(target: string, uid: number, gid: number): void {
  if (uid === 0) return;
  for (let p = path.resolve(target); ; p = path.dirname(p)) {
    if (!searchable.has(p)) {
      const st = statSync(p);
      const ok = st.uid === uid ? st.mode & 0o100 : st.gid === gid ? st.mode & 0o010 : st.mode & 0o001;
      if (!ok) {
        throw new SandboxError(
          `${p} (mode ${(st.mode & 0o777).toString(8)}) cannot be searched by the sandbox's host uid ${uid}, so bwrap cannot bind ${target}. ` +
            `Run \`chmod o+x ${p}\`, or put CRUCIBLE_DATA_DIR / CRUCIBLE_ENV_STORE under a searchable directory.`,
          'config',
        );
      }
      searchable.add(p);
    }
    if (p === '/') return;
  }
}

export class BwrapSandbox extends SupervisedSandbox {
  protected override readonly gatedStart = true;
  private readonly seccompFile: string;
  private readonly egress?: EgressProxy;
  private readonly egressReady?: Promise<void>;
  /** the supervisor binary: set when this sandbox runs warm (one bwrap, many execs) */
  private readonly supervisor?: string;
  private readonly keep = new Set<number>();
  /** host pid of the sandbox's PID 1 (the supervisor, or bwrap's child before it execs) */
  private supervisorPid?: number;

  constructor(
    readonly runtime: BwrapRuntime,
    spec: SandboxSpec,
  ) {
    super('bwrap', spec, runtime.options);
    this.seccompFile = path.join(this.dir, 'seccomp.bpf');
    writeFileSync(this.seccompFile, compileSeccompFilter());
    if (spec.allow?.length) {
      this.egress = new EgressProxy(path.join(this.dir, 'egress.sock'), spec.allow);
      this.egressReady = this.egress.listen();
      this.egressReady.catch(() => undefined);
    } else {
      // the egress forwarder joins each exec's network namespace, so allow-lists stay per exec
      this.supervisor = supervisorBinary(path.dirname(spec.env.dir), runtime.options);
      if (this.supervisor) this.starting = this.startSupervised();
    }
  }

  /** bwrap runs as the sandbox's host uid: it must reach the rootfs and the scratch it binds. */
  protected override preflight(sandboxesDir: string): void {
    for (const p of [this.spec.env.rootfs, sandboxesDir]) assertSearchable(p, this.hostUid, this.hostGid);
  }

  /** True when execs go to a long-lived supervisor instead of a new bwrap each. */
  override get warm(): boolean {
    return this.supervisor !== undefined;
  }

  protected override onDestroy(): void {
    this.egress?.close();
    this.channel?.close();
  }

  override residentPids(): number[] {
    return this.channel?.alive ? [...this.keep] : [];
  }

  /**
   * Start bwrap once, with the supervisor as the sandbox's PID 1: bwrap and its child join
   * the cgroup while held on --block-fd, the environment is checked meanwhile (by the
   * launcher or the verify thread), and only then does the supervisor start.
   */
  protected override startSupervised(): Promise<SupervisorStart> {
    const checking = this.verifyEnvironment();
    const launcher = sharedLauncher(path.dirname(this.spec.env.dir), this.options);
    return (async (): Promise<SupervisorStart> => {
      // no wait for the scratch mount: the launcher handles it before this spawn, and
      // without the launcher it was mounted synchronously
      const held = await (launcher ? this.holdViaLauncher(launcher) : this.holdViaSpawn());
      const fail = async (error: string): Promise<SupervisorStart> => {
        this.stopSupervisor();
        if ('host' in held) held.host?.dispose();
        this.cgroup.killAll();
        await checking;
        return { error };
      };
      if ('error' in held) return fail(`${held.error}${held.host ? `: ${(await held.host.stderr()).trim() || 'no message'}` : ''}`);
      const { host, childPid } = held;
      try {
        // bwrap (the monitor) and the future supervisor, still held before exec, join the
        // cgroup: everything any command forks is born inside it (the launcher did it already)
        if (!held.confined) {
          if (held.pid) this.cgroup.addPid(held.pid);
          this.cgroup.addPid(childPid);
        }
      } catch (e) {
        return fail(`cannot confine sandbox processes: ${(e as Error).message}`);
      }
      this.keep.clear();
      if (held.pid) this.keep.add(held.pid);
      this.keep.add(childPid);
      this.supervisorPid = childPid;
      // a memory bomb must be the OOM victim, never the supervisor (root may lower this)
      try {
        if (process.getuid?.() === 0) writeFileSync(`/proc/${childPid}/oom_score_adj`, '-1000');
      } catch {
        /* exited meanwhile: the first exec reports it (the channel is lost) */
      }
      const channel = new SupervisorChannel(host, held.input, held.output);
      const v = await checking;
      if (!v.ok) {
        this.stopSupervisor();
        channel.close();
        this.cgroup.killAll();
        return { mismatch: v };
      }
      held.go();
      // the first exec request may go out before the supervisor reports ready (it reads
      // requests only after that); a supervisor that fails to start fails that exec
      this.channel = channel;
      return { channel };
    })();
  }

  /** bwrap's arguments for a warm sandbox: the supervisor (fd 6) as PID 1. */
  private supervisorArgs(): string[] {
    return [...this.namespaceArgs('/'), '--as-pid-1', '--seccomp', '3', '--info-fd', '4', '--block-fd', '5', '--', '/proc/self/fd/6'];
  }

  /**
   * bwrap spawned from Node, already inside the sandbox's cgroups: its cgroup namespace is
   * rooted where it is when it clones, so a move after the start would show the sandbox
   * its host cgroup path in /proc/self/cgroup. As root, a tiny sh joins the groups and
   * becomes bwrap as the sandbox's host uid (setpriv); the moves that follow are no-ops.
   */
  private spawnBwrap(args: string[], stdio: StdioOptions): ChildProcess {
    const env = { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv;
    if (process.getuid?.() !== 0 || this.cgroup.dirs.length === 0) return spawn(this.runtime.binary, args, { cwd: '/', env, stdio });
    const procs = this.cgroup.dirs.map((d) => path.join(d, 'cgroup.procs')).join('\n');
    const join = 'printf %s "$1" | while IFS= read -r p || [ -n "$p" ]; do echo $$ > "$p" || exit 125; done || exit 125; shift; exec "$@"';
    return spawn(
      '/bin/sh',
      [
        '-c',
        join,
        'crucible-bwrap',
        procs,
        'setpriv',
        `--reuid=${this.hostUid}`,
        `--regid=${this.hostGid}`,
        '--clear-groups',
        '--',
        this.runtime.binary,
        ...args,
      ],
      { cwd: '/', env, stdio },
    );
  }

  /** bwrap forked by the launcher (a fork of a tiny process, not of this one). */
  private async holdViaLauncher(launcher: Launcher): Promise<Held> {
    const r = await launcher.spawnBwrap({
      argv: [this.runtime.binary, ...this.supervisorArgs()],
      uid: this.hostUid,
      gid: this.hostGid,
      seccompFile: this.seccompFile,
      exe: this.supervisor!,
      stderrFile: path.join(this.dir, 'supervisor.stderr'),
      cgroupDirs: this.cgroup.dirs,
    });
    if ('error' in r) return { error: `cannot start bwrap: ${r.error}`, host: r.proc };
    const { proc } = r;
    return { host: proc, input: proc.socket!, output: proc.socket!, pid: proc.pid, childPid: proc.childPid!, confined: true, go: () => proc.go() };
  }

  /** bwrap spawned by this worker (no launcher: no C compiler, or CRUCIBLE_SANDBOX_LAUNCHER=0). */
  private async holdViaSpawn(): Promise<Held> {
    const seccompFd = openSync(this.seccompFile, 'r');
    const binFd = openSync(this.supervisor!, 'r');
    let child: ChildProcess;
    try {
      child = this.spawnBwrap(this.supervisorArgs(), ['pipe', 'pipe', 'pipe', seccompFd, 'pipe', 'pipe', binFd]);
    } catch (e) {
      return { error: `cannot start bwrap: ${(e as Error).message}` };
    } finally {
      closeSync(seccompFd);
      closeSync(binFd);
    }
    const host = childHost(child);
    const extra = child.stdio as unknown as (Readable | Writable)[];
    const info = extra[4] as Readable;
    const block = extra[5] as Writable;
    block.on('error', () => undefined);
    info.on('error', () => undefined);
    child.once('exit', () => {
      info.destroy();
      block.destroy();
    });
    const childPid = await new Promise<number | undefined>((resolve) => {
      let buf = '';
      info.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /"child-pid":\s*(\d+)[,}\s]/.exec(buf);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => resolve(undefined));
      child.once('error', () => resolve(undefined));
    });
    if (childPid === undefined) return { error: 'bwrap exited before the sandbox started', host };
    return { host, input: child.stdin!, output: child.stdout!, pid: child.pid, childPid, go: () => block.end('x') };
  }

  /** Tear down the running supervisor; the next exec starts (and checks) a fresh one. */
  protected override restart(): void {
    this.stopSupervisor();
    this.channel?.close();
    this.channel = undefined;
    this.starting = undefined;
    this.cgroup.killAll();
    this.keep.clear();
  }

  /**
   * Kill the sandbox's PID 1 first and let bwrap reap it before anything else dies. Killed
   * together, the supervisor could outlive its parent for an instant and be reparented to
   * the host's init, which may never reap it: a zombie charged to the pids cgroup forever.
   */
  private stopSupervisor(): void {
    const pid = this.supervisorPid;
    this.supervisorPid = undefined;
    if (!pid) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return; // already gone
    }
    const tick = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 200 && existsSync(`/proc/${pid}`); i++) Atomics.wait(tick, 0, 0, 1);
  }

  override destroy(): void {
    if (!this.destroyed) this.stopSupervisor();
    super.destroy();
  }

  /** Every process in the cgroup but bwrap and the supervisor (the supervisor kills inside first). */
  protected override killCommands(): void {
    this.cgroup.killAll(this.keep);
  }

  /** Namespaces, mounts and identity: the same for a per-exec bwrap and a warm one. */
  private namespaceArgs(cwd: string): string[] {
    return [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
      '--uid',
      String(SANDBOX_UID),
      '--gid',
      String(SANDBOX_UID),
      '--hostname',
      'sandbox',
      '--ro-bind',
      this.scratch.view,
      '/', // the rootfs, seen through a view that hides its host path (scratch.ts)
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--bind',
      this.scratch.work,
      '/work',
      '--bind',
      this.scratch.tmp,
      '/tmp',
      '--chdir',
      cwd,
      '--clearenv',
      '--setenv',
      'PATH',
      sandboxEnv().PATH!,
    ];
  }

  args(ctx: LaunchContext): string[] {
    const proxy = `http://127.0.0.1:${PROXY_PORT}`;
    const env = sandboxEnv({
      ...(this.egress ? { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy } : {}),
      ...ctx.opts.env,
    });
    const a = this.namespaceArgs(ctx.opts.cwd ?? '/work');
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    a.push('--seccomp', '3', '--info-fd', '4', '--block-fd', '5', '--', ...ctx.cmd);
    return a;
  }

  protected launch(ctx: LaunchContext): Launched {
    const seccompFd = openSync(this.seccompFile, 'r'); // a fresh fd each time: bwrap reads it to EOF
    let child: ChildProcess;
    const stdio: StdioOptions = ['pipe', 'pipe', 'pipe', seccompFd, 'pipe', 'pipe'];
    try {
      child = this.spawnBwrap(this.args(ctx), stdio);
    } finally {
      closeSync(seccompFd);
    }
    const extra = child.stdio as unknown as (Readable | Writable)[];
    const info = extra[4] as Readable;
    const block = extra[5] as Writable;
    block.on('error', () => undefined);
    // control sockets must not hold the child's 'close' (stdout/stderr still drain normally)
    child.once('exit', () => {
      info.destroy();
      block.destroy();
    });
    let forwarder: ChildProcess | undefined;
    const logFrom = this.egress?.log.length ?? 0;
    const ready = new Promise<void>((resolve, reject) => {
      let buf = '';
      const onData = (d: Buffer) => {
        buf += d.toString();
        const m = /"child-pid":\s*(\d+)/.exec(buf);
        if (!m) return;
        info.off('data', onData);
        const childPid = Number(m[1]);
        (async () => {
          // bwrap (the monitor) and its child, still blocked before exec, join the cgroup;
          // everything the command forks from here on is born inside it.
          if (child.pid) this.cgroup.addPid(child.pid);
          this.cgroup.addPid(childPid);
          if (this.egress) forwarder = await this.startForwarder(childPid);
          if (!(await ctx.gate())) throw new Error('environment verification did not pass');
          block.end('x');
        })().then(resolve, (e: Error) => reject(new SandboxError(`cannot confine sandbox processes: ${e.message}`)));
      };
      info.on('data', onData);
      info.on('error', () => undefined);
      child.once('close', () => reject(new SandboxError('bwrap exited before the command started')));
      child.once('error', reject);
    });
    ready.catch(() => undefined);
    return {
      child,
      ready,
      cleanup: () => forwarder?.kill('SIGKILL'),
      extra: () => (this.egress ? { egress: this.egress.log.slice(logFrom) } : {}),
    };
  }

  /**
   * The proxy forwarder: a host python3 entered into the sandbox's network namespace
   * only (host mount namespace, so it reaches the proxy's unix socket), running as the
   * sandbox's host uid inside its cgroup, so it dies with the exec.
   */
  private async startForwarder(childPid: number): Promise<ChildProcess> {
    await this.egressReady;
    const fwd = spawn(
      'nsenter',
      [
        `--net=/proc/${childPid}/ns/net`,
        '--',
        'setpriv',
        `--reuid=${this.hostUid}`,
        `--regid=${this.hostGid}`,
        '--clear-groups',
        'python3',
        '-c',
        FORWARDER,
        this.egress!.socketPath,
        String(PROXY_PORT),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv },
    );
    if (fwd.pid) this.cgroup.addPid(fwd.pid);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('egress forwarder did not start within 5 s')), 5000);
      let err = '';
      fwd.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      fwd.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      fwd.once('exit', (c) => {
        clearTimeout(timer);
        reject(new Error(`egress forwarder exited (${c}): ${err.trim()}`));
      });
      fwd.once('error', reject);
    });
    return fwd;
  }

  protected setupFailure(code: number | null, stderr: string): string | undefined {
    if (code === 1 && stderr.startsWith('bwrap: ')) return `bwrap failed to set up the sandbox: ${stderr.trim().split('\n')[0]}`;
    return undefined;
  }
}
