import { resolveEnvironment } from '../env/env-builtin';
import type { Environment } from '../env/env-manifest';
import { environmentBuilt } from '../env/env-store';
import { installEnvironmentImage } from '../env/env-image';
import { QuotaLedger, detectHostCapacity, type HostCapacity } from '../limits/quota';
import type { Sandbox, SandboxRuntime } from '../runtimes/sandbox-runtime';
import { checkedRuntime } from '../runtimes/runtime-by-name';
import { sweepDeadSandboxes, type SweepReport } from './sweep';
import { SandboxError, limitsSchema, type ExecOptions, type ExecResult, type Limits, type LimitsInput } from '../types';
import { SandboxAudit } from './audit';
import { verifyThread } from '../env/verify-thread';
import { EnvironmentGate } from '../env/env-gate';
import type { ArtifactFetcher, EnvironmentRegistry, SandboxRecords } from '../ports';
import type { RuntimeOptions } from '../runtimes/options';

export type ManagerOptions = {
  dataDir: string;
  /** where built environments live (the platform's: `envStoreDir()`, db/open-database.ts) */
  storeDir: string;
  /**
   * Audit rows, `sandboxes` rows, environment registration and the quarantine check, when
   * there is a database (server/environments/sandbox-records.ts builds them)
   */
  records?: SandboxRecords;
  actor?: string;
  workerId?: string;
  capacity?: HostCapacity;
  reserve?: number;
  /** idle sandboxes kept per (environment, runtime, limits) key */
  maxIdlePerKey?: number;
  /** idle sandboxes older than this are destroyed (pool shrink) */
  idleTtlMs?: number;
  /** how long a quarantine lookup is reused (default 1.5 s) */
  quarantineCacheMs?: number;
  /** host binaries and fast paths (the platform's: `runtimeOptions(settings())`) */
  runtime: RuntimeOptions;
};

export type AcquireSpec = {
  runtime?: string;
  env?: string;
  limits?: LimitsInput;
  allow?: string[];
  /** a newly created sandbox, never a pooled one (grading: nothing an earlier user did can remain) */
  fresh?: boolean;
};

export type ExecContext = { runId?: string; episodeId?: string };

type Idle = { sandbox: Sandbox; since: number };

/**
 * Owns the sandboxes of one worker: resolves runtimes (refusing missing ones) and
 * environments, admits quotas, keeps a warm pool per (environment, runtime, limits) that
 * is reset between uses, shrinks it when idle, sweeps a dead predecessor's leftovers on
 * start and destroys everything on close.
 */
export class SandboxManager {
  readonly ledger: QuotaLedger;
  readonly storeDir: string;
  readonly sweep: SweepReport;
  private readonly runtimes = new Map<string, SandboxRuntime>();
  private readonly envs = new Map<string, Environment>();
  private readonly idle = new Map<string, Idle[]>();
  private readonly busy = new Map<Sandbox, string>();
  private readonly audit: SandboxAudit;
  private readonly gate?: EnvironmentGate;
  private readonly runtimeOptions: RuntimeOptions;
  private shrinkTimer?: NodeJS.Timeout;
  private closed = false;
  private readonly fetching = new Map<string, Promise<void>>();

  constructor(readonly opts: ManagerOptions) {
    this.runtimeOptions = opts.runtime;
    this.storeDir = opts.storeDir;
    this.sweep = sweepDeadSandboxes(opts.dataDir);
    this.ledger = new QuotaLedger(opts.capacity ?? detectHostCapacity(opts.dataDir), opts.reserve ?? 0.3);
    this.audit = new SandboxAudit(opts.records, opts.actor ?? 'system:sandbox', opts.workerId);
    if (opts.records) this.gate = new EnvironmentGate(opts.records.environments, opts.records.quarantine, opts.quarantineCacheMs);
    const ttl = opts.idleTtlMs ?? 30_000;
    this.shrinkTimer = setInterval(() => this.shrink(ttl), Math.max(1000, ttl / 2));
    this.shrinkTimer.unref();
  }

  runtime(name: string): SandboxRuntime {
    let rt = this.runtimes.get(name);
    if (!rt) {
      rt = checkedRuntime(name, this.runtimeOptions);
      this.runtimes.set(name, rt);
    }
    return rt;
  }

  /**
   * The environment `name`, fetching its published image first when this host has not built
   * it (another host ran `crucible env publish`): installed only if it reproduces the baseline
   * hash, so either way the first start is on the verified baseline (docs/scale-out.md).
   */
  async environmentFor(name: string): Promise<Environment> {
    const records = this.opts.records;
    if (!this.envs.has(name) && records?.images && !environmentBuilt(name, this.storeDir)) {
      let p = this.fetching.get(name);
      if (!p) {
        p = this.fetchImage(name, records.environments, records.images).finally(() => this.fetching.delete(name));
        this.fetching.set(name, p);
      }
      await p;
    }
    return this.environment(name);
  }

  private async fetchImage(name: string, registry: EnvironmentRegistry, images: ArtifactFetcher): Promise<void> {
    const image = await registry.image(name);
    if (!image) return; // never published: built from its spec (default) or refused with how to build it
    let file: string;
    try {
      file = await images.fetch(image.imageSha256);
    } catch (e) {
      throw new SandboxError(
        `cannot fetch the published image of environment "${name}" (artifact ${image.imageSha256}): ${(e as Error).message}; check this host's artifact backend settings (docs/scale-out.md) or build it here with \`crucible env build\``,
        'env_mismatch',
      );
    }
    await installEnvironmentImage(name, file, image.hash, this.storeDir);
  }

  environment(name: string): Environment {
    let env = this.envs.get(name);
    if (!env) {
      env = resolveEnvironment(name, this.storeDir);
      this.envs.set(name, env);
    }
    return env;
  }

  limits(input: LimitsInput = {}): Limits {
    return this.ledger.clampDefaults(limitsSchema.parse(input), input as Partial<Limits>);
  }

  private key(rt: string, env: Environment, l: Limits, allow: string[]): string {
    return JSON.stringify([rt, env.hash, l, [...allow].sort()]);
  }

  /** A sandbox ready to exec: a warm one from the pool when available, else a new one. */
  async acquire(spec: AcquireSpec = {}): Promise<Sandbox> {
    if (this.closed) throw new SandboxError('sandbox manager is closed', 'internal');
    const rtName = spec.runtime ?? 'bwrap';
    const rt = this.runtime(rtName);
    const env = await this.environmentFor(spec.env ?? 'default');
    // registers the baseline row and refuses a quarantined environment (cached briefly)
    await this.gate?.assertUsable(env);
    const limits = this.limits(spec.limits);
    const allow = spec.allow ?? [];
    const key = this.key(rtName, env, limits, allow);
    const warm = spec.fresh ? undefined : this.idle.get(key)?.pop();
    if (warm) {
      this.busy.set(warm.sandbox, key);
      warm.sandbox.arm(); // its start: the environment is checked before its next exec
      this.audit.state(warm.sandbox, 'busy');
      return warm.sandbox;
    }
    this.admitEvictingIdle(limits);
    let sb: Sandbox;
    try {
      sb = rt.create({ env, limits, dataDir: this.opts.dataDir, allow });
    } catch (e) {
      this.ledger.release(limits);
      throw e;
    }
    try {
      await sb.prepared;
    } catch (e) {
      sb.destroy();
      this.ledger.release(limits);
      throw e;
    }
    this.busy.set(sb, key);
    await this.audit.created(sb, env);
    return sb;
  }

  /** Admit a new sandbox, destroying idle pooled ones (oldest first) when that makes room. */
  private admitEvictingIdle(limits: Limits): void {
    for (;;) {
      try {
        this.ledger.admit(limits);
        return;
      } catch (e) {
        let oldest: { key: string; i: number; since: number } | undefined;
        for (const [key, list] of this.idle) {
          list.forEach((it, i) => {
            if (!oldest || it.since < oldest.since) oldest = { key, i, since: it.since };
          });
        }
        if (!oldest) throw e;
        const list = this.idle.get(oldest.key)!;
        const [victim] = list.splice(oldest.i, 1);
        if (list.length === 0) this.idle.delete(oldest.key);
        victim!.sandbox.destroy();
        this.ledger.release(victim!.sandbox.spec.limits);
        // eviction is synchronous; its audit row is written in the background, never unhandled
        this.auditInBackground(this.audit.destroyed(victim!.sandbox), 'sandbox.destroy (evicted)');
      }
    }
  }

  /** Create `n` idle sandboxes ahead of demand. */
  async prewarm(spec: AcquireSpec, n: number): Promise<void> {
    const made: Sandbox[] = [];
    for (let i = 0; i < n; i++) made.push(await this.acquire(spec));
    for (const sb of made) await this.release(sb);
  }

  /** Back to the pool after a reset (or destroyed when the pool is full or the reset fails). */
  async release(sb: Sandbox): Promise<void> {
    const key = this.busy.get(sb);
    this.busy.delete(sb);
    if (key === undefined) return;
    const max = this.opts.maxIdlePerKey ?? 4;
    const room = () => !this.closed && !sb.destroyed && (this.idle.get(key)?.length ?? 0) < max;
    if (room()) {
      try {
        await sb.reset();
        // re-read after the (possibly async) reset: other releases may have filled the pool
        if (room()) {
          const list = this.idle.get(key) ?? [];
          list.push({ sandbox: sb, since: Date.now() });
          this.idle.set(key, list);
          this.audit.state(sb, 'warm');
          return;
        }
      } catch {
        /* a sandbox that cannot be reset is destroyed */
      }
    }
    await this.destroy(sb);
  }

  /** A background audit write: a database error is logged, never an unhandled rejection that ends the worker. */
  private auditInBackground(write: Promise<void>, what: string): void {
    write.catch((e: unknown) => console.error(`sandbox audit: ${what} not recorded: ${e instanceof Error ? e.message : String(e)}`));
  }

  async destroy(sb: Sandbox): Promise<void> {
    this.busy.delete(sb);
    if (sb.destroyed) return;
    sb.destroy();
    this.ledger.release(sb.spec.limits);
    await this.audit.destroyed(sb);
  }

  /** Acquire, copy files in, run, audit, release: one call per command. */
  async exec(
    spec: AcquireSpec & { files?: { dest: string; data: Buffer | string; mode?: number }[] },
    cmd: string[],
    opts: ExecOptions = {},
    ctx: ExecContext = {},
  ): Promise<ExecResult> {
    let sb: Sandbox;
    try {
      sb = await this.acquire(spec);
    } catch (e) {
      // a quarantined environment: the start is refused like a failed environment check
      if (e instanceof SandboxError && e.kind === 'env_mismatch') return this.refused(spec, e.message);
      throw e;
    }
    try {
      for (const f of spec.files ?? []) sb.putFile(f.dest, f.data, f.mode);
      const result = await sb.exec(cmd, opts);
      await this.audit.exec(sb, cmd, result, ctx);
      if (result.status === 'env_mismatch') {
        this.envs.delete(spec.env ?? 'default');
        await this.audit.envMismatch(sb, result.error ?? '');
        await this.destroy(sb);
      }
      return result;
    } finally {
      await this.release(sb);
    }
  }

  private refused(spec: AcquireSpec, error: string): ExecResult {
    return {
      status: 'env_mismatch',
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: 0,
      // refused before it was built or fetched here: no hash of this host's to report
      envHash: this.envs.get(spec.env ?? 'default')?.hash ?? '',
      runtime: this.runtime(spec.runtime ?? 'bwrap').name,
      sandboxId: '',
      usage: { cpuMs: 0, maxRssMb: 0 },
      error,
    };
  }

  /** Destroy idle sandboxes that waited longer than `ttlMs`. */
  shrink(ttlMs = 0): number {
    const now = Date.now();
    let n = 0;
    for (const [key, list] of this.idle) {
      const keep = list.filter((i) => now - i.since < ttlMs);
      for (const i of list) {
        if (!keep.includes(i)) {
          this.auditInBackground(this.destroy(i.sandbox), 'sandbox.destroy (idle expired)');
          n++;
        }
      }
      if (keep.length) this.idle.set(key, keep);
      else this.idle.delete(key);
    }
    return n;
  }

  stats() {
    let idle = 0;
    for (const l of this.idle.values()) idle += l.length;
    return { idle, busy: this.busy.size, quota: this.ledger.inUse, admissible: this.ledger.admissible };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.shrinkTimer);
    for (const list of this.idle.values()) for (const i of list) await this.destroy(i.sandbox);
    this.idle.clear();
    for (const sb of [...this.busy.keys()]) await this.destroy(sb);
    verifyThread.close();
  }
}
