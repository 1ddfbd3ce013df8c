import { constants as osConstants } from 'node:os';
import { CappedCapture } from './capture';
import type { VerifyResult } from '../env/env-verify';
import { verifyThread } from '../env/verify-thread';
import { Sandbox } from './sandbox-runtime';
import { rootViewStale, wipeScratch } from './scratch';
import { sandboxEnv } from './sandbox-env';
import type { SupervisorChannel } from './supervisor';
import { SandboxError, type ExecOptions, type ExecResult } from '../types';

/** How long a supervisor may take to report after a timeout's kill, or to wipe, before the sandbox is restarted. */
export const KILL_GRACE_MS = 2000;
/** what one exec request may carry on stdin (the supervisor refuses larger requests) */
const MAX_STDIN = 256 * 1024 * 1024;
const SIGNAL_NAMES = new Map(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

/** How starting a sandbox's supervisor ended: a channel to it, a failed environment check, or an error. */
export type SupervisorStart = { channel: SupervisorChannel } | { mismatch: VerifyResult } | { error: string };

/**
 * A sandbox whose execs go to a long-lived supervisor (supervisor.c) as its PID 1 instead
 * of a new runtime start each: warm bwrap, warm gVisor and microVM sandboxes. This is the
 * exec path they share: the environment check on a (re)start, the request over the
 * channel, the wall-clock kill with its grace, a lost supervisor restarted, and the result
 * classified like any other exec. Each runtime says how its supervisor starts and stops.
 */
export abstract class SupervisedSandbox extends Sandbox {
  protected starting?: Promise<SupervisorStart>;
  protected channel?: SupervisorChannel;
  /** the environment check of a pooled sandbox's new start (arm), awaited by its next exec */
  protected pendingCheck?: Promise<VerifyResult>;

  /** True when execs go to a long-lived supervisor instead of one runtime start each. */
  abstract get warm(): boolean;
  /** Start the supervisor once the environment check passed. */
  protected abstract startSupervised(): Promise<SupervisorStart>;
  /** Tear down the running supervisor; the next exec starts (and checks) a fresh one. */
  protected abstract restart(): void;
  /**
   * The host's own kill of whatever commands left, besides the supervisor's: after each
   * exec, on a timeout, before a wipe. Nothing where commands are not host processes.
   */
  protected killCommands(): void {}
  /** After a lost supervisor was torn down (gVisor boots its next container right away). */
  protected afterLoss(): void {}

  /** A pooled sandbox handed out again is a new start: check the environment (off-thread) before its next exec. */
  override arm(): void {
    if (!this.warm || this.destroyed) return;
    this.pendingCheck = this.verifyEnvironment();
  }

  /** The environment check, on its thread; a check that could not run is a failed one. */
  protected verifyEnvironment(): Promise<VerifyResult> {
    return verifyThread
      .verify(this.spec.env, this.options)
      .catch((e: Error): VerifyResult => ({ ok: false, mode: 'fast', problems: [e.message], durationMs: 0 }));
  }

  /**
   * For runtimes that boot only after the check (gVisor, microVM: no hold like bwrap's
   * --block-fd): the check starts now, then the scratch must be in place and the check
   * passed. Undefined when the sandbox may boot, else why not.
   */
  protected async readyToBoot(): Promise<SupervisorStart | undefined> {
    const checking = this.verifyEnvironment();
    try {
      await this.prepared;
    } catch (e) {
      await checking;
      return { error: (e as Error).message };
    }
    const v = await checking;
    if (!v.ok) return { mismatch: v };
    if (this.destroyed) return { error: 'the sandbox was destroyed' };
    return undefined;
  }

  protected mismatch(v: VerifyResult, t0: number): ExecResult {
    return this.failed('env_mismatch', `environment ${this.spec.env.name} (${this.envHash}) changed: ${v.problems.join('; ')}`, t0);
  }

  protected override execWarm(cmd: string[], opts: ExecOptions, t0: number): Promise<ExecResult> | undefined {
    if (!this.warm) return undefined;
    return this.execSupervised(cmd, opts, t0);
  }

  private async execSupervised(cmd: string[], opts: ExecOptions, t0: number): Promise<ExecResult> {
    const stale = rootViewStale(this.scratch, this.spec.env.rootfs);
    if (stale) {
      this.restart();
      return this.mismatch({ ok: false, mode: 'fast', problems: [stale], durationMs: 0 }, t0);
    }
    if (this.pendingCheck) {
      const v = await this.pendingCheck;
      this.pendingCheck = undefined;
      if (!v.ok) {
        this.restart(); // nothing more runs in this one; a later start re-checks
        return this.mismatch(v, t0);
      }
    }
    const started = await (this.starting ??= this.startSupervised());
    if ('mismatch' in started) {
      this.starting = undefined;
      return this.mismatch(started.mismatch, t0);
    }
    if ('error' in started) {
      this.starting = undefined;
      return this.failed('sandbox_error', started.error, t0);
    }
    const ch = started.channel;
    const env = sandboxEnv(opts.env);
    if ([...cmd, opts.cwd ?? '', ...Object.values(env)].some((a) => a.includes('\0'))) {
      throw new SandboxError('command arguments, cwd and environment values cannot contain NUL bytes', 'config');
    }
    const stdin = opts.stdin === undefined ? Buffer.alloc(0) : Buffer.from(opts.stdin);
    if (stdin.length > MAX_STDIN) throw new SandboxError(`stdin is larger than ${MAX_STDIN} bytes; put the data in a file with putFile instead`, 'config');
    const limits = this.spec.limits;
    const timeoutMs = opts.timeoutMs ?? limits.timeoutMs;
    const c0 = this.startCounters();
    const out = new CappedCapture(limits.outputBytes);
    const err = new CappedCapture(limits.outputBytes);
    let timedOut = false;
    let grace: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      // the supervisor kills every process inside (atomically w.r.t. forks); one that does
      // not report back in time is torn down with the whole sandbox
      ch.kill();
      this.killCommands();
      grace = setTimeout(() => this.restart(), KILL_GRACE_MS);
    }, timeoutMs);
    const x = await ch.run({ cmd, env, cwd: opts.cwd ?? '/work', stdin, outputCap: limits.outputBytes }, out, err);
    clearTimeout(timer);
    clearTimeout(grace);
    if (x.kind === 'lost') {
      // the supervisor is gone (torn down after a timeout, its runtime failed or was
      // OOM-killed): the command died with it; a fresh one serves the next exec
      this.restart();
      this.afterLoss();
      const r = this.classify({ code: null, sig: 'SIGKILL', timedOut, out, err, t0, c0 });
      return timedOut || r.status === 'memory_limit' ? r : { ...this.failed('sandbox_error', x.error, t0), stderr: err.text() };
    }
    this.killCommands(); // the supervisor already killed the rest; the host makes sure
    out.total = Math.max(out.total, x.outTotal);
    err.total = Math.max(err.total, x.errTotal);
    if (x.execError) return { ...this.failed('sandbox_error', `cannot run the command: ${x.execError}`, t0), stderr: err.text() };
    return this.classify({
      code: x.code,
      sig: x.signal ? (SIGNAL_NAMES.get(x.signal) ?? `SIG${x.signal}`) : null,
      timedOut,
      out,
      err,
      t0,
      c0,
      fallbackUsage: { cpuMs: Math.round((x.userUs + x.sysUs) / 1000), maxRssMb: Math.round((x.maxRssKb / 1024) * 10) / 10 },
    });
  }

  /**
   * Between users: every command's processes killed, the supervisor wipes what they may
   * leave outside scratch (/dev extras, /dev/shm, SysV IPC; "dirty" restarts the sandbox,
   * as does no answer within the grace), the host wipes /work and /tmp.
   */
  override async reset(): Promise<void> {
    if (!this.warm) return super.reset();
    this.pendingCheck = undefined;
    // a supervisor still starting (released before its first exec) is waited for, not killed
    const started = await this.starting;
    const ch = started && 'channel' in started ? started.channel : undefined;
    if (!ch?.alive) {
      this.restart();
    } else {
      this.killCommands();
      let timer: NodeJS.Timeout | undefined;
      const w = await Promise.race([ch.wipe(), new Promise<string>((r) => (timer = setTimeout(() => r('dirty: no answer to wipe'), KILL_GRACE_MS)))]);
      clearTimeout(timer);
      if (w !== 'clean') this.restart();
    }
    wipeScratch(this.scratch);
    this.cgroup.resetCounters();
    this.starting ??= this.startSupervised();
  }
}
