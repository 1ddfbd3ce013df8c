import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NodeCapacity } from '@/core/resources';

const MB = 1024 * 1024;

/**
 * GPUs as nvidia-smi reports them: count and memory in MiB summed over all GPUs (so a
 * node's gpuMemoryMb is its total; per-GPU is total / count on homogeneous nodes).
 * No nvidia-smi, or one that fails (no driver), means no GPUs.
 */
export function detectGpus(run: () => string = nvidiaSmi): { gpuCount: number; gpuMemoryMb: number } {
  let out: string;
  try {
    out = run();
  } catch {
    return { gpuCount: 0, gpuMemoryMb: 0 };
  }
  const perGpu = out
    .split('\n')
    .map((l) => Number.parseInt(l.trim(), 10))
    .filter((n) => Number.isFinite(n) && n >= 0);
  return { gpuCount: perGpu.length, gpuMemoryMb: perGpu.reduce((a, b) => a + b, 0) };
}

function nvidiaSmi(): string {
  return execFileSync('nvidia-smi', ['--query-gpu=memory.total', '--format=csv,noheader,nounits'], {
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Free disk where Crucible keeps its data (the nearest existing folder of the data dir). */
export function freeDiskMb(dir: string): number {
  let d = path.resolve(dir);
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  try {
    const s = fs.statfsSync(d);
    return Math.floor((s.bavail * s.bsize) / MB);
  } catch {
    return 0;
  }
}

/** What this node offers, recorded with each worker registration for the scheduler; disk is measured where `dataDir` lives. */
export function detectCapacity(dataDir: string): NodeCapacity {
  return {
    cpus: os.availableParallelism(),
    memoryMb: Math.floor(os.totalmem() / MB),
    ...detectGpus(),
    diskMb: freeDiskMb(dataDir),
  };
}
