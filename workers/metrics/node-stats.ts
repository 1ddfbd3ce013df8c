import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Cumulative CPU jiffies from the first line of /proc/stat. */
export type CpuTimes = { busy: number; total: number };

export function readCpuTimes(text: string = fs.readFileSync('/proc/stat', 'utf8')): CpuTimes {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('/proc/stat has no aggregate cpu line');
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0); // guest is already counted in user
  return { busy: total - idle, total };
}

/** CPU utilisation 0..1 between two readings (null when no time passed). */
export function cpuUtilisation(prev: CpuTimes, next: CpuTimes): number | null {
  const dt = next.total - prev.total;
  return dt > 0 ? Math.min(1, Math.max(0, (next.busy - prev.busy) / dt)) : null;
}

export function readMemory(text: string = fs.readFileSync('/proc/meminfo', 'utf8')): { totalMb: number; usedMb: number } {
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  if (!Number.isFinite(total) || !Number.isFinite(available)) throw new Error('/proc/meminfo lacks MemTotal/MemAvailable');
  return { totalMb: total / 1024, usedMb: (total - available) / 1024 };
}

/** Used and total MB of the filesystem holding `dir` (as `df` counts them); null if it cannot be read. */
export function readDisk(dir: string): { usedMb: number; totalMb: number } | null {
  try {
    const s = fs.statfsSync(dir);
    const mb = (blocks: number) => (blocks * s.bsize) / 1_048_576;
    return { totalMb: mb(s.blocks), usedMb: mb(s.blocks - s.bfree) };
  } catch {
    return null;
  }
}

export type GpuReading = { index: number; utilisation: number; memoryUsedMb: number; memoryTotalMb: number };

/** GPUs from nvidia-smi, or null when it is absent or fails (never a made-up figure). */
export function readGpus(run: () => string = nvidiaSmi): GpuReading[] | null {
  let out: string;
  try {
    out = run();
  } catch {
    return null;
  }
  const rows = out
    .split('\n')
    .map((l) => l.split(',').map((s) => Number(s.trim())))
    .filter((r) => r.length === 4 && r.every(Number.isFinite));
  return rows.map(([index, util, used, total]) => ({ index: index!, utilisation: util! / 100, memoryUsedMb: used!, memoryTotalMb: total! }));
}

function nvidiaSmi(): string {
  return execFileSync('nvidia-smi', ['--query-gpu=index,utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits'], {
    encoding: 'utf8',
    timeout: 5_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}
