import { readFileSync } from 'node:fs';

/**
 * Identity of a live process that survives pid reuse: pid plus its start time in clock
 * ticks since boot. Sandbox cgroups and directories are tagged with their owner's
 * identity so a later start can tell a dead worker's leftovers from a live neighbour's.
 */
export type OwnerId = { pid: number; start: number };

export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return undefined;
  }
}

let self: OwnerId | undefined;
export function selfOwner(): OwnerId {
  self ??= { pid: process.pid, start: processStartTicks(process.pid) ?? 0 };
  return self;
}

export function ownerAlive(o: OwnerId): boolean {
  return processStartTicks(o.pid) === o.start;
}

export function ownerTag(o: OwnerId = selfOwner()): string {
  return `${o.pid}.${o.start}`;
}

export function parseOwnerTag(name: string): OwnerId | undefined {
  const m = /^(\d+)\.(\d+)\./.exec(name);
  return m ? { pid: Number(m[1]), start: Number(m[2]) } : undefined;
}
