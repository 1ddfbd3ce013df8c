import { execFile } from 'node:child_process';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import type { NodeCapacity } from '@/core/resources';
import type { Db } from '@/db/client';
import { workers } from '@/db/schema';
import { detectCapacity } from '@/lib/scheduler/host-capacity';
import { dataDir } from '@/db/open-database';
import { probeRuntimes, type RuntimeProbe } from '@/lib/sandbox/runtimes/available-runtimes';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/** What this deployment's sandbox hosts offer a launch: their runtimes and the largest host. */
export type Deployment = {
  /** canonical names of the runtimes that work on at least one sandbox host */
  available: string[];
  /** live sandbox hosts that reported, or this host measured when none has registered yet */
  source: 'workers' | 'this host';
  /** this host's runtime probe (with the reason each runtime is missing), when that is the source */
  probe?: RuntimeProbe[];
  /** the most vCPUs and the most memory any one host offers a task, and which host has each */
  largest: { cpus: number; cpusHost: string; memoryMb: number; memoryHost: string };
  /** every sandbox host together (each host counted once, however many workers it runs) */
  total: { cpus: number; memoryMb: number; hosts: number };
};

let local: { at: number; probe: RuntimeProbe[]; capacity: NodeCapacity } | null = null;
let probing: Promise<RuntimeProbe[]> | null = null;

/**
 * This host's runtime probe, run in a child process (`crucible sandbox runtimes --json`):
 * probing microvm tries to boot a KVM guest, which takes seconds, and run synchronously in
 * the web server it would stall every other request until it ends. One probe at a time.
 */
function probeInChild(): Promise<RuntimeProbe[]> {
  probing ??= new Promise<RuntimeProbe[]>((resolve) => {
    execFile(
      process.execPath,
      [path.resolve('scripts/crucible.mjs'), 'sandbox', 'runtimes', '--json'],
      { timeout: 120_000, maxBuffer: 4 << 20 },
      (err, stdout) => {
        try {
          if (err) throw err;
          const rows = JSON.parse(stdout) as { name: string; available: boolean; reason?: string }[];
          resolve(rows.map((r) => ({ name: r.name, available: r.available === true, ...(r.reason ? { reason: r.reason } : {}) })));
        } catch {
          resolve(probeRuntimes(runtimeOptions(settings()))); // no CLI here (e.g. a bundled server): probe in-process, as before
        }
      },
    );
  }).finally(() => {
    probing = null;
  });
  return probing;
}

/**
 * The deployment as launches see it: the union of the runtimes live sandbox-running workers
 * reported at registration, and the largest capacity among them. When none has registered
 * (a fresh single-host install before `npm start`'s workers are up), this host's own probe
 * and capacity, cached for a minute.
 */
export async function deploymentHosts(db: Db): Promise<Deployment> {
  const rows = await db
    .select({ capacity: workers.capacity, host: sql<string>`coalesce(${workers.node}, ${workers.hostname})` })
    .from(workers)
    .where(and(eq(workers.status, 'running'), sql`${workers.capacity} ? 'runtimes'`));
  if (rows.length) {
    const most = (figure: 'cpus' | 'memoryMb') => rows.reduce((a, b) => (b.capacity[figure] > a.capacity[figure] ? b : a));
    const cpus = most('cpus');
    const memory = most('memoryMb');
    const hosts = [...new Map(rows.map((r) => [r.host, r.capacity])).values()];
    return {
      available: [...new Set(rows.flatMap((r) => r.capacity.runtimes ?? []))].sort(),
      source: 'workers',
      largest: { cpus: cpus.capacity.cpus, cpusHost: cpus.host, memoryMb: memory.capacity.memoryMb, memoryHost: memory.host },
      total: { cpus: hosts.reduce((a, c) => a + c.cpus, 0), memoryMb: hosts.reduce((a, c) => a + c.memoryMb, 0), hosts: hosts.length },
    };
  }
  if (!local || Date.now() - local.at > 60_000) local = { at: Date.now(), probe: await probeInChild(), capacity: detectCapacity(dataDir()) };
  return {
    available: local.probe.filter((p) => p.available).map((p) => p.name),
    source: 'this host',
    probe: local.probe,
    largest: { cpus: local.capacity.cpus, cpusHost: 'this host', memoryMb: local.capacity.memoryMb, memoryHost: 'this host' },
    total: { cpus: local.capacity.cpus, memoryMb: local.capacity.memoryMb, hosts: 1 },
  };
}
