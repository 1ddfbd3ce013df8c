import { describe, expect, it } from 'vitest';
import { detectCapacity, detectGpus, freeDiskMb } from './host-capacity';

describe('node capacity', () => {
  it('reads GPU count and total memory from nvidia-smi output (fake nvidia-smi: no GPU in CI)', () => {
    expect(detectGpus(() => '143771\n143771\n')).toEqual({ gpuCount: 2, gpuMemoryMb: 287542 });
    expect(detectGpus(() => '81559\n')).toEqual({ gpuCount: 1, gpuMemoryMb: 81559 });
    expect(detectGpus(() => '')).toEqual({ gpuCount: 0, gpuMemoryMb: 0 });
  });

  it('reports no GPUs when nvidia-smi is missing or fails (no driver)', () => {
    expect(
      detectGpus(() => {
        throw Object.assign(new Error('spawn nvidia-smi ENOENT'), { code: 'ENOENT' });
      }),
    ).toEqual({ gpuCount: 0, gpuMemoryMb: 0 });
  });

  it('measures this machine', () => {
    const c = detectCapacity('/tmp');
    expect(c.cpus).toBeGreaterThan(0);
    expect(c.memoryMb).toBeGreaterThan(100);
    expect(c.diskMb).toBeGreaterThan(0);
    expect(Number.isInteger(c.gpuCount)).toBe(true);
    // A data dir that does not exist yet is measured at its nearest existing parent.
    expect(freeDiskMb('/tmp/does/not/exist/yet')).toBeGreaterThan(0);
  });
});
