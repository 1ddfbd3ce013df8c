import type { EnvironmentRegistry, QuarantineCheck } from '../ports';
import { SandboxError } from '../types';
import type { Environment } from './env-manifest';

type Entry = { at: number; error?: string };

/**
 * Before a sandbox starts on an environment (created or taken warm from the pool): make
 * sure its `environments` row exists (the baseline hash the review view compares with;
 * an existing row is never overwritten here), once per manager, and refuse it while
 * quarantined or while this host's build differs from that baseline hash. The quarantine lookup is cached for
 * `ttlMs` so a busy worker does not pay a query per exec; a quarantine therefore stops
 * new starts within that long.
 */
export class EnvironmentGate {
  private readonly registered = new Map<string, Promise<void>>();
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();

  constructor(
    private readonly registry: EnvironmentRegistry,
    private readonly quarantine: QuarantineCheck,
    private readonly ttlMs = 1500,
  ) {}

  async assertUsable(env: Environment): Promise<void> {
    const key = `${env.name}\0${env.hash}`;
    let e = this.cache.get(key);
    if (!e || performance.now() - e.at >= this.ttlMs) {
      let p = this.inflight.get(key);
      if (!p) {
        p = this.lookup(key, env).finally(() => this.inflight.delete(key));
        this.inflight.set(key, p);
      }
      e = await p;
    }
    if (e.error) throw new SandboxError(e.error, 'env_mismatch');
  }

  private async lookup(key: string, env: Environment): Promise<Entry> {
    let reg = this.registered.get(key);
    if (!reg) {
      reg = this.registry.register(env);
      this.registered.set(key, reg);
      reg.catch(() => this.registered.delete(key)); // retried on the next start
    }
    await reg;
    const [baseline, quarantined] = await Promise.all([this.registry.baseline(env.name), this.quarantine.quarantined({ name: env.name, hash: env.hash })]);
    // Another host's build of the same name is another environment: a reward on it would not
    // be comparable (scale-out, docs/scale-out.md). Refused until this host's build matches.
    const problem =
      quarantined ??
      (baseline !== undefined && baseline !== env.hash
        ? `environment "${env.name}" on this host has content hash ${env.hash}, but its baseline (the environments table, registered by the first host that used it) is ${baseline}: this host's build differs (other packages or toolchain versions). Fetch the baseline's published image with \`crucible env fetch ${env.name}\` (after \`crucible env publish ${env.name}\` on a host that has it), or install the same system packages (scripts/system-deps.sh) and rebuild it with \`crucible env build\``
        : undefined);
    const entry: Entry =
      problem === undefined
        ? { at: performance.now() }
        : {
            at: performance.now(),
            error:
              quarantined === undefined
                ? `cannot start a sandbox: ${problem}`
                : `cannot start a sandbox: ${problem}. Once the environment is fixed (e.g. rebuilt with \`crucible env build\`), ` +
                  `an admin clears it with the environments.clear API (POST /api/trpc/environments.clear {"name":"${env.name}"}).`,
          };
    this.cache.set(key, entry);
    return entry;
  }
}
