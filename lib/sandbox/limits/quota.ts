import os from 'node:os';
import { statfsSync, existsSync } from 'node:fs';
import path from 'node:path';
import { SandboxError, type Limits } from '../types';

export type HostCapacity = { cpus: number; memoryMb: number; diskMb: number };

/** What this host offers sandboxes before the reserve is taken off. */
export function detectHostCapacity(dataDir: string): HostCapacity {
  let d = path.resolve(dataDir);
  while (!existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  const s = statfsSync(d);
  return {
    cpus: os.availableParallelism(),
    memoryMb: Math.floor(os.totalmem() / (1024 * 1024)),
    diskMb: Math.floor((s.bavail * s.bsize) / (1024 * 1024)),
  };
}

/**
 * Admission control: the sum of admitted sandboxes' quotas never exceeds the host's
 * capacity minus an elastic reserve (default 30%). Pooled idle sandboxes hold theirs.
 */
export class QuotaLedger {
  private used = { cpus: 0, memoryMb: 0, diskMb: 0 };
  readonly admissible: HostCapacity;
  constructor(
    readonly capacity: HostCapacity,
    readonly reserve = 0.3,
  ) {
    const f = 1 - reserve;
    this.admissible = { cpus: capacity.cpus * f, memoryMb: capacity.memoryMb * f, diskMb: capacity.diskMb * f };
  }

  /** Default limits clipped to what one sandbox could ever be admitted with on this host. */
  clampDefaults(l: Limits, explicit: Partial<Limits>): Limits {
    const out = { ...l };
    if (explicit.cpus === undefined) out.cpus = Math.max(0.1, Math.min(l.cpus, Math.floor(this.admissible.cpus * 10) / 10));
    if (explicit.memoryMb === undefined) out.memoryMb = Math.max(16, Math.min(l.memoryMb, Math.floor(this.admissible.memoryMb)));
    if (explicit.diskMb === undefined) out.diskMb = Math.max(1, Math.min(l.diskMb, Math.floor(this.admissible.diskMb)));
    return out;
  }

  admit(l: Limits): void {
    const next = { cpus: this.used.cpus + l.cpus, memoryMb: this.used.memoryMb + l.memoryMb, diskMb: this.used.diskMb + l.diskMb };
    for (const k of ['cpus', 'memoryMb', 'diskMb'] as const) {
      if (next[k] > this.admissible[k] + 1e-9) {
        throw new SandboxError(
          `host quota exceeded: ${k} would be ${next[k]} of ${this.admissible[k].toFixed(1)} admissible ` +
            `(capacity ${this.capacity[k]} minus ${Math.round(this.reserve * 100)}% reserve); ` +
            'lower the sandbox limits, release sandboxes, or raise the capacity',
          'config',
        );
      }
    }
    this.used = next;
  }

  release(l: Limits): void {
    this.used = { cpus: this.used.cpus - l.cpus, memoryMb: this.used.memoryMb - l.memoryMb, diskMb: this.used.diskMb - l.diskMb };
  }

  get inUse() {
    return { ...this.used };
  }
}
