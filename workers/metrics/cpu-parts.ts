import fs from 'node:fs';
import type { NodeCpuSeconds, PhaseSeconds } from '@/core/compute';
import { WORKER_KINDS } from '@/core/queues';

/**
 * One node's CPU attributed to what runs on it (core/compute.ts NODE_CPU_PARTS), from /proc:
 *
 * - a worker process's own time (utime + stime) is "workers", less what its jobs spent learning
 *   (its heartbeat's `cpu_phase_seconds.learning`), which is "learner";
 * - everything below a job or sandbox worker (sandboxes, their commands, tools) is "sandboxes": the live
 *   descendants' times plus what exited (cutime + cstime, which a parent gains when it reaps a
 *   child; the part of an exited process already counted while it lived is taken off again); below
 *   the other workers (the metrics worker's nvidia-smi) it is theirs, "workers";
 * - the rest of the tree that started the workers (the `npm start` session: web console,
 *   embedded PostgreSQL) is "platform";
 * - "other" is what the node was busy with beyond these (core/compute.ts nodeCpuBreakdown).
 */

/** A process as /proc/<pid>/stat tells it: parent, own CPU and its reaped children's, in clock ticks. */
export type ProcTimes = { pid: number; ppid: number; own: number; reaped: number };

/** Clock ticks per second (USER_HZ): 100 on every Linux that Node runs on. */
export const CLOCK_TICKS = 100;

/** Parse /proc/<pid>/stat (the command name may hold spaces and parentheses: fields start after the last ')'). */
export function parseProcStat(text: string): ProcTimes | null {
  const close = text.lastIndexOf(')');
  const pid = Number.parseInt(text, 10);
  if (close < 0 || !Number.isFinite(pid)) return null;
  const f = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // f[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17
  const n = (field: number) => Number(f[field - 3]);
  const [ppid, ut, st, cut, cst] = [n(4), n(14), n(15), n(16), n(17)];
  if (![ppid, ut, st, cut, cst].every(Number.isFinite)) return null;
  return { pid, ppid, own: ut + st, reaped: cut + cst };
}

/** Every process of this node (those that vanish while read are skipped). */
export function readProcesses(root = '/proc'): ProcTimes[] {
  const out: ProcTimes[] = [];
  for (const name of fs.readdirSync(root)) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const p = parseProcStat(fs.readFileSync(`${root}/${name}/stat`, 'utf8'));
      if (p) out.push(p);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** A running worker of this node as the workers table has it. */
export type NodeWorker = { id: string; kind: string; pid: number; cpuPhaseSeconds: PhaseSeconds };

/** Workers whose children are sandboxes (and the commands they run). */
const SANDBOX_PARENTS = new Set<string>([WORKER_KINDS.jobs, WORKER_KINDS.sandbox]);

type Part = 'workers' | 'sandboxes' | 'platform';
/** What the previous reading saw: each process's counted ticks and part, each worker's learning seconds. */
export type CpuPartsState = { seen: Map<number, { part: Part; ticks: number; worker: boolean; workerReaped?: number }>; learning: Map<string, number> };

export const newCpuPartsState = (): CpuPartsState => ({ seen: new Map(), learning: new Map() });

/**
 * CPU-seconds per part since the previous call (the first call only records where things are:
 * it returns zeros). `busy`/`total` are left for the caller (the node's /proc/stat delta).
 */
export function cpuPartsSince(state: CpuPartsState, procs: ProcTimes[], workers: NodeWorker[], ticksPerSecond = CLOCK_TICKS): NodeCpuSeconds['parts'] {
  const first = state.seen.size === 0 && state.learning.size === 0;
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const workerPids = new Set(workers.map((w) => w.pid).filter((pid) => byPid.has(pid)));
  const children = new Map<number, number[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const partOf = new Map<number, Part>();
  const mark = (root: number, part: Part) => {
    const stack = [...(children.get(root) ?? [])];
    while (stack.length) {
      const pid = stack.pop()!;
      if (partOf.has(pid) || workerPids.has(pid)) continue;
      partOf.set(pid, part);
      stack.push(...(children.get(pid) ?? []));
    }
  };
  const kindOf = new Map(workers.map((w) => [w.pid, w.kind]));
  for (const pid of workerPids) {
    partOf.set(pid, 'workers');
    mark(pid, SANDBOX_PARENTS.has(kindOf.get(pid) ?? '') ? 'sandboxes' : 'workers');
  }
  // the session that started the workers (their parent, unless that is init) and its other children
  const roots = new Set([...workerPids].map((pid) => byPid.get(pid)!.ppid).filter((ppid) => ppid > 1 && byPid.has(ppid) && !workerPids.has(ppid)));
  for (const root of roots) {
    if (!partOf.has(root)) partOf.set(root, 'platform');
    mark(root, 'platform');
  }

  const ticks = { workers: 0, sandboxes: 0, platform: 0 };
  const seen: CpuPartsState['seen'] = new Map();
  for (const [pid, part] of partOf) {
    const p = byPid.get(pid)!;
    // a job or sandbox worker's own time is "workers" and what it reaped "sandboxes"; elsewhere own + reaped
    const isWorker = workerPids.has(pid);
    const reapedTo: Part = isWorker && SANDBOX_PARENTS.has(kindOf.get(pid) ?? '') ? 'sandboxes' : part;
    const counted = isWorker ? p.own : p.own + p.reaped;
    const prev = state.seen.get(pid);
    const samePart = prev && prev.part === part && prev.worker === isWorker;
    ticks[part] += counted - (samePart ? prev.ticks : 0);
    if (isWorker) ticks[reapedTo] += p.reaped - (samePart ? (prev.workerReaped ?? 0) : 0);
    seen.set(pid, { part, ticks: counted, worker: isWorker, ...(isWorker ? { workerReaped: p.reaped } : {}) });
  }
  // exited: what they had when last seen is counted again in their reaper's `reaped`; take it off
  for (const [pid, prev] of state.seen) {
    if (seen.has(pid)) continue;
    if (prev.worker) {
      // a worker's end shows in the session's reaped time (platform): all of it was counted already
      ticks.platform -= prev.ticks + (prev.workerReaped ?? 0);
    } else ticks[prev.part] -= prev.ticks;
  }
  state.seen = seen;

  let learning = 0;
  const nextLearning = new Map<string, number>();
  for (const w of workers) {
    const now = w.cpuPhaseSeconds.learning ?? 0;
    const before = state.learning.get(w.id);
    if (before !== undefined && workerPids.has(w.pid)) learning += Math.max(0, now - before);
    nextLearning.set(w.id, now);
  }
  state.learning = nextLearning;

  if (first) return { workers: 0, learner: 0, sandboxes: 0, platform: 0 };
  const sec = (t: number) => Math.max(0, t) / ticksPerSecond;
  const workersSec = sec(ticks.workers);
  // the learner runs inside a job worker: its seconds come out of that worker's own
  const learner = Math.min(learning, workersSec);
  return { workers: workersSec - learner, learner, sandboxes: sec(ticks.sandboxes), platform: sec(ticks.platform) };
}
