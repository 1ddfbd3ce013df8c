import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readFileBeneath, writeFileBeneath, type Beneath } from '../beneath';
import { CappedCapture, splitExit } from './capture';
import { SandboxCgroup, type CgroupLimits } from '../limits/cgroup';
import { RunDelaySampler, runDelayAvailable } from '../limits/cpu-wait';
import type { Environment } from '../env/env-manifest';
import { verifyEnvironmentFast, type VerifyResult } from '../env/env-verify';
import { verifyThread } from '../env/verify-thread';
import { sharedLauncher } from './launcher';
import type { RuntimeOptions } from './options';
import { ownerTag, selfOwner } from '../pool/owner';
import { createScratch, rootViewStale, unmountScratch, wipeScratch, type Scratch } from './scratch';
import { SandboxError, type Enforcement, type ExecOptions, type ExecResult, type Limits } from '../types';
import { recordSandboxCpu } from '@/lib/compute/meter';

/** Everything needed to create one sandbox. */
export type SandboxSpec = {
  env: Environment;
  limits: Limits;
  /** where sandboxes keep their state: `<dataDir>/sandboxes/<id>` */
  dataDir: string;
  /** host uid/gid the sandboxed processes run as (default nobody) */
  hostUid?: number;
  hostGid?: number;
  /** host:port destinations reachable through the egress proxy (see egress.ts) */
  allow?: string[];
};

/** One isolation technology. `check()` throws a SandboxError saying what to install. */
export interface SandboxRuntime {
  readonly name: string;
  /** host binaries and fast paths its sandboxes use */
  readonly options: RuntimeOptions;
  check(): void;
  enforces(): Enforcement;
  create(spec: SandboxSpec): Sandbox;
}

export type LaunchContext = {
  cmd: string[];
  opts: ExecOptions;
  execId: string;
  /** runtimes that can hold the command before exec await this first: false → do not start */
  gate: () => Promise<boolean>;
};
export type Launched = {
  child: ChildProcess;
  /** resolves once the command's processes are confined (e.g. moved into the cgroup) */
  ready: Promise<void>;
  /** called after the exec (successful or not) to release runtime-side state */
  cleanup?: () => void;
  /** runtime-specific fields merged into the result (e.g. the egress log) */
  extra?: () => Partial<ExecResult>;
};

/** psiUs: the group's cpu.pressure total at the start (cgroup v2); wait: the sampled fallback (v1) */
type Counters = { oom: number; hits: number; cpuNs: number; psiUs?: number; wait?: RunDelaySampler; throttledUs: number };

/** How an exec ended, for `classify`: the exit, the captures, and the counters at its start. */
export type ExecEnding = {
  code: number | null;
  sig: string | null;
  timedOut: boolean;
  out: CappedCapture;
  err: CappedCapture;
  t0: number;
  c0: Counters;
  /** used where no cgroup counts (e.g. rusage from the supervisor) */
  fallbackUsage?: { cpuMs: number; maxRssMb: number };
};

const NOBODY = 65534;
const MAX_GET_BYTES = 64 * 1024 * 1024;

/**
 * The host side every runtime shares: state directory tagged with the owner (for crash
 * sweeps), a size-capped scratch tmpfs, the cgroup with limits and counters, env
 * verification before every start, output capture and result classification.
 */
export abstract class Sandbox {
  readonly id: string;
  readonly dir: string;
  readonly scratch: Scratch;
  readonly cgroup: SandboxCgroup;
  readonly hostUid: number;
  readonly hostGid: number;
  /**
   * Settles when the sandbox's host-side state is in place (its scratch mount, when the
   * launcher does it): the manager awaits it before handing the sandbox out.
   */
  readonly prepared: Promise<void>;
  destroyed = false;
  private busy = false;
  /** false while the launcher may still be mounting the scratch (see teardownDirs) */
  private mountSettled = false;
  execCount = 0;

  constructor(
    readonly runtimeName: string,
    readonly spec: SandboxSpec,
    readonly options: RuntimeOptions,
  ) {
    this.id = `sb-${randomBytes(6).toString('hex')}`;
    const asRoot = process.getuid?.() === 0;
    this.hostUid = spec.hostUid ?? (asRoot ? NOBODY : process.getuid!());
    this.hostGid = spec.hostGid ?? (asRoot ? NOBODY : process.getgid!());
    const root = path.join(spec.dataDir, 'sandboxes');
    mkdirSync(root, { recursive: true, mode: 0o755 });
    this.preflight(root); // before anything is created, so a refusal leaves nothing behind
    const name = `${ownerTag()}.${this.id}`;
    this.dir = path.join(root, name);
    mkdirSync(this.dir, { mode: 0o755 });
    try {
      writeFileSync(path.join(this.dir, 'owner.json'), JSON.stringify({ ...selfOwner(), id: this.id, runtime: runtimeName }));
      const launcher = sharedLauncher(path.dirname(spec.env.dir), options);
      const s = createScratch(this.dir, spec.limits.diskMb, this.hostUid, this.hostGid, spec.env.rootfs, launcher && ((...a) => launcher.mountScratch(...a)));
      this.scratch = s.scratch;
      this.prepared = s.ready.then(
        () => void (this.mountSettled = true),
        (e: Error) => {
          this.mountSettled = true;
          throw new SandboxError(`cannot create sandbox: scratch space: ${e.message}`, 'internal');
        },
      );
      this.prepared.catch(() => undefined); // awaited by the manager and by exec
      this.cgroup = SandboxCgroup.create(name, this.hostGroupLimits(spec.limits));
      // the groups' paths depend on this process's own cgroup; a sweeper started elsewhere finds them here
      writeFileSync(path.join(this.dir, 'owner.json'), JSON.stringify({ ...selfOwner(), id: this.id, runtime: runtimeName, cgroups: this.cgroup.dirs }));
    } catch (e) {
      this.teardownDirs();
      throw new SandboxError(`cannot create sandbox: ${(e as Error).message}`, 'internal');
    }
  }

  get envHash(): string {
    return this.spec.env.hash;
  }

  protected abstract launch(ctx: LaunchContext): Launched;
  /**
   * True when launch() holds the command until `gate()` passes (bwrap's --block-fd): the
   * environment check then runs while the runtime sets up namespaces, off the critical path.
   */
  protected readonly gatedStart: boolean = false;
  /** Runtime-specific: did the runtime itself fail before the command ran? */
  protected abstract setupFailure(code: number | null, stderr: string): string | undefined;
  /**
   * Runtimes with a long-lived supervisor in the sandbox (bwrap, see supervisor.ts) run the
   * command themselves; undefined means: start the runtime once for this exec (launch()).
   */
  protected execWarm(_cmd: string[], _opts: ExecOptions, _t0: number): Promise<ExecResult> | undefined {
    return undefined;
  }
  /**
   * Called when a pooled sandbox is handed out again (its start): runtimes that keep one
   * long-lived sandbox verify the environment here instead of per exec.
   */
  arm(): void {}
  /** Host pids that belong to the sandbox itself (its supervisor), not to any command. */
  residentPids(): number[] {
    return [];
  }

  async exec(cmd: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    if (this.destroyed) throw new SandboxError(`sandbox ${this.id} was destroyed`, 'internal');
    if (this.busy) throw new SandboxError(`sandbox ${this.id} is already running a command; use one exec at a time`, 'internal');
    if (cmd.length === 0) throw new SandboxError('no command given', 'config');
    this.busy = true;
    try {
      await this.prepared;
      const result = await this.execOnce(cmd, opts);
      // counted to the job and phase that ran it (lib/compute/meter.ts; nothing outside a job)
      recordSandboxCpu(result.usage.cpuMs);
      return result;
    } finally {
      this.busy = false;
      this.execCount++;
    }
  }

  protected base(): Pick<ExecResult, 'envHash' | 'runtime' | 'sandboxId'> {
    return { envHash: this.envHash, runtime: this.runtimeName, sandboxId: this.id };
  }

  protected failed(status: 'env_mismatch' | 'sandbox_error', error: string, t0: number): ExecResult {
    this.waitSampler?.stop();
    this.waitSampler = undefined;
    return {
      status,
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: Math.round(performance.now() - t0),
      ...this.base(),
      usage: { cpuMs: 0, maxRssMb: 0 },
      error,
    };
  }

  private async execOnce(cmd: string[], opts: ExecOptions): Promise<ExecResult> {
    const t0 = performance.now();
    const warm = this.execWarm(cmd, opts, t0);
    if (warm) return warm;
    let verify: VerifyResult | undefined;
    const mismatch = () => this.failed('env_mismatch', `environment ${this.spec.env.name} (${this.envHash}) changed: ${verify!.problems.join('; ')}`, t0);
    // the check below reads the store's current rootfs; the sandbox's / is the one it mounted
    const stale = rootViewStale(this.scratch, this.spec.env.rootfs);
    if (stale) return this.failed('env_mismatch', `environment ${this.spec.env.name} (${this.envHash}) changed: ${stale}`, t0);
    if (!this.gatedStart) {
      verify = verifyEnvironmentFast(this.spec.env);
      if (!verify.ok) return mismatch();
    }
    const limits = this.spec.limits;
    const timeoutMs = opts.timeoutMs ?? limits.timeoutMs;
    const c0 = this.startCounters();
    const out = new CappedCapture(limits.outputBytes);
    const err = new CappedCapture(limits.outputBytes);
    let launched: Launched;
    // gated runtimes: the check starts on its thread now and the command waits for it
    const checking = this.gatedStart
      ? verifyThread.verify(this.spec.env, this.options).then(
          (v) => (verify = v),
          (e: Error) => (verify = { ok: false, mode: 'fast', problems: [e.message], durationMs: 0 }),
        )
      : undefined;
    try {
      launched = this.launch({ cmd, opts, execId: randomBytes(4).toString('hex'), gate: async () => ((await checking) ?? verify)?.ok === true });
    } catch (e) {
      await checking;
      return this.failed('sandbox_error', (e as Error).message, t0);
    }
    const { child } = launched;
    out.attach(child.stdout);
    err.attach(child.stderr);
    let timedOut = false;
    let spawnError: Error | undefined;
    const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) => {
      child.on('error', (e) => {
        spawnError = e;
        resolve({ code: null, sig: null });
      });
      child.on('close', (code, sig) => resolve({ code, sig }));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      this.cgroup.killAll();
    }, timeoutMs);
    if (checking) {
      await checking;
      if (!verify!.ok) {
        // the command never ran: bwrap is still holding it on --block-fd. Let the runtime
        // finish confining its processes first (ready settles: the gate refuses), so the
        // cgroup kill below reaches them all.
        await launched.ready.catch(() => undefined);
        clearTimeout(timer);
        child.kill('SIGKILL');
        await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
        for (const s of child.stdio) s?.destroy(); // the unused block/info sockets would hold 'close'
        launched.cleanup?.();
        this.cgroup.killAll();
        return mismatch();
      }
    }
    try {
      await launched.ready;
      if (child.stdin) {
        child.stdin.on('error', () => undefined); // the command may exit without reading
        child.stdin.end(opts.stdin ?? '');
      }
    } catch (e) {
      child.kill('SIGKILL');
      spawnError ??= e as Error;
    }
    const { code, sig } = await exited;
    clearTimeout(timer);
    this.cgroup.killAll(); // whatever the command left behind (daemons) dies with the exec
    launched.cleanup?.();
    const stderr = err.text();
    if (spawnError) return { ...this.failed('sandbox_error', spawnError.message, t0), stderr };
    const setup = timedOut ? undefined : this.setupFailure(code, stderr);
    if (setup) return { ...this.failed('sandbox_error', setup, t0), stderr };
    return { ...this.classify({ code, sig, timedOut, out, err, t0, c0 }), ...launched.extra?.() };
  }

  /** the v1 run_delay sampler of the exec in progress (stopped by classify or failed) */
  private waitSampler?: RunDelaySampler;

  /**
   * Zero the cgroup's peak/CPU counters before an exec and remember the event counts; start
   * measuring the group's CPU wait (cpu-wait.ts: PSI on v2, sampled run_delay on v1).
   */
  protected startCounters(): Counters {
    this.cgroup.resetCounters();
    this.waitSampler?.stop();
    this.waitSampler = undefined;
    const psiUs = this.cgroup.cpuPressureUs();
    if (psiUs === undefined && this.cgroup.mode === 'v1' && runDelayAvailable()) this.waitSampler = new RunDelaySampler(() => this.cgroup.pids());
    return {
      oom: this.cgroup.oomKills(),
      hits: this.cgroup.memoryLimitHits(),
      cpuNs: this.cgroup.cpuUsageNs(),
      psiUs,
      wait: this.waitSampler,
      throttledUs: this.cgroup.cpuThrottledUs(),
    };
  }

  /**
   * The exec's CPU wait in ms (ExecResult.usage.cpuWaitMs), less the time the sandbox's own
   * quota throttled it (its own doing: a command cannot make the host look busy with it);
   * undefined where not measured.
   */
  private cpuWaitMs(c0: Counters): number | undefined {
    let waitMs: number | undefined;
    if (c0.psiUs !== undefined) {
      const now = this.cgroup.cpuPressureUs();
      waitMs = now === undefined ? undefined : (now - c0.psiUs) / 1000;
    } else if (c0.wait) {
      if (this.waitSampler === c0.wait) this.waitSampler = undefined;
      waitMs = c0.wait.stop();
    }
    if (waitMs === undefined) return undefined;
    return Math.max(0, Math.round(waitMs - (this.cgroup.cpuThrottledUs() - c0.throttledUs) / 1000));
  }

  /** The exec result from how the command ended and what the cgroup saw meanwhile. */
  protected classify(p: ExecEnding): ExecResult {
    const limits = this.spec.limits;
    const durationMs = Math.round(performance.now() - p.t0);
    const cpuWaitMs = this.cpuWaitMs(p.c0);
    const usage: ExecResult['usage'] =
      this.cgroup.mode === 'none' && p.fallbackUsage
        ? p.fallbackUsage
        : {
            cpuMs: Math.round((this.cgroup.cpuUsageNs() - p.c0.cpuNs) / 1e6),
            maxRssMb: Math.round((this.cgroup.memoryPeakBytes() / (1024 * 1024)) * 10) / 10,
            ...(cpuWaitMs === undefined ? {} : { cpuWaitMs }),
          };
    const { exitCode, signal } = splitExit(p.code, p.sig as NodeJS.Signals | null);
    // v1 counts OOM kills only in the victim's own group, which an OCI runtime has removed
    // by now; a SIGKILL with the limit hit or the peak at the limit is the same event.
    const atLimit = this.cgroup.memoryPeakBytes() >= limits.memoryMb * 1024 * 1024 - 1024 * 1024;
    const oom = this.cgroup.oomKills() > p.c0.oom || (signal === 'SIGKILL' && (this.cgroup.memoryLimitHits() > p.c0.hits || atLimit));
    const status = p.timedOut ? 'timeout' : oom ? 'memory_limit' : signal ? 'killed' : exitCode === 0 ? 'ok' : 'nonzero_exit';
    return {
      status,
      exitCode: p.timedOut ? null : exitCode,
      signal: p.timedOut ? 'SIGKILL' : signal,
      stdout: p.out.text(),
      stderr: p.err.text(),
      stdoutTruncated: p.out.truncated,
      stderrTruncated: p.err.truncated,
      durationMs,
      ...this.base(),
      usage,
    };
  }

  /**
   * A sandbox path (/work/..., /tmp/... or relative to /work) as the scratch directory it
   * lies in and the components below it; `..` cannot climb out (resolved first).
   */
  private beneath(p: string): Beneath {
    const abs = path.posix.resolve('/work', p);
    const [, top, ...rest] = abs.split('/');
    const root = top === 'work' ? this.scratch.work : top === 'tmp' ? this.scratch.tmp : undefined;
    if (!root) throw new SandboxError(`files can only be put in or read from /work or /tmp, not ${p}`, 'config');
    return { root, shownRoot: `/${top}`, parts: rest.filter(Boolean) };
  }

  /**
   * Write a file into the sandbox. Sandboxed code may have planted symlinks in /work or
   * /tmp, so directories are created and the file opened one component at a time without
   * following any link (beneath.ts), which no swap between check and use can defeat.
   */
  putFile(dest: string, data: Buffer | string, mode = 0o644): void {
    const owner = process.getuid?.() === 0 ? { uid: this.hostUid, gid: this.hostGid } : undefined;
    writeFileBeneath(this.beneath(dest), typeof data === 'string' ? Buffer.from(data) : data, mode, owner);
  }

  getFile(p: string): Buffer {
    return readFileBeneath(this.beneath(p), MAX_GET_BYTES);
  }

  /** Back to a clean state for the next user: processes killed, scratch wiped. */
  reset(): void | Promise<void> {
    this.cgroup.killAll();
    wipeScratch(this.scratch);
    this.cgroup.resetCounters();
  }

  /** Runtime-side teardown (e.g. closing the egress proxy). */
  protected onDestroy(): void {}

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.cgroup.destroy();
    try {
      this.onDestroy();
    } finally {
      this.teardownDirs();
    }
  }

  /**
   * The host cgroup's limits: the sandbox's own, unless the runtime's machinery shares the
   * group (gVisor's kernel threads count as pids there). Called from the constructor.
   */
  protected hostGroupLimits(limits: Limits): CgroupLimits {
    return limits;
  }

  /** Runtime-specific checks before any state is created; throw a SandboxError to refuse. */
  protected preflight(_sandboxesDir: string): void {}

  private teardownDirs(): void {
    // a mount still in flight would land after the unmount check: tear down once it settles
    if (this.prepared && !this.mountSettled) {
      void this.prepared.catch(() => undefined).then(() => this.teardownDirs());
      return;
    }
    try {
      unmountScratch(path.join(this.dir, 'scratch'));
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
