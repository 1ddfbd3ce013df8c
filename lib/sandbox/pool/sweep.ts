import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { removeRecordedGroups, sweepDeadCgroups } from '../limits/cgroup';
import { ownerAlive, parseOwnerTag } from './owner';
import { mountedScratches, unmountScratch } from '../runtimes/scratch';
import { sweepDeadOciContainers } from '../runtimes/oci';
import { sweepDeadLauncherDirs } from '../runtimes/launcher';

export type SweepReport = { cgroups: string[]; mounts: string[]; dirs: string[]; containers: string[] };

/**
 * What a dead worker left behind: its sandboxes' processes (killed with their cgroups),
 * OCI containers, scratch mounts, state directories and its launcher's socket directory. Owners are identified by pid +
 * start time, so a live neighbour's sandboxes are never touched.
 */
export function sweepDeadSandboxes(dataDir: string): SweepReport {
  const report: SweepReport = { cgroups: [], mounts: [], dirs: [], containers: [] };
  report.containers = sweepDeadOciContainers();
  report.cgroups = sweepDeadCgroups();
  for (const m of mountedScratches()) {
    const owner = parseOwnerTag(path.basename(path.dirname(m)));
    if (owner && !ownerAlive(owner)) {
      try {
        const rec = JSON.parse(readFileSync(path.join(path.dirname(m), 'owner.json'), 'utf8')) as { cgroups?: string[] };
        removeRecordedGroups(rec.cgroups ?? []);
      } catch {
        /* no record */
      }
      try {
        unmountScratch(m);
        report.mounts.push(m);
        rmSync(path.dirname(m), { recursive: true, force: true });
      } catch {
        /* raced by a concurrent sweeper */
      }
    }
  }
  report.dirs.push(...sweepDeadLauncherDirs());
  const root = path.join(dataDir, 'sandboxes');
  if (existsSync(root)) {
    for (const name of readdirSync(root)) {
      const owner = parseOwnerTag(name);
      if (!owner || ownerAlive(owner)) continue;
      try {
        const rec = JSON.parse(readFileSync(path.join(root, name, 'owner.json'), 'utf8')) as { cgroups?: string[] };
        removeRecordedGroups(rec.cgroups ?? []);
      } catch {
        /* no record (died while creating): the cgroup scan above covers its own tree */
      }
      try {
        unmountScratch(path.join(root, name, 'scratch'));
        rmSync(path.join(root, name), { recursive: true, force: true });
        report.dirs.push(name);
      } catch {
        /* busy or raced by a concurrent sweeper; the next sweep retries */
      }
    }
  }
  return report;
}
