import { describe, expect, it } from 'vitest';
import { jobComputePhase, nodeCpuBreakdown, sandboxPhase } from './compute';

describe('nodeCpuBreakdown', () => {
  it('stacks the measured parts and leaves the rest of busy as other, adding up to utilisation', () => {
    // 2 CPUs over 5 s = 10 CPU-seconds; 8 busy
    const b = nodeCpuBreakdown({ busy: 8, total: 10, parts: { workers: 1, learner: 2, sandboxes: 3, platform: 0.5 } })!;
    expect(b.workers).toBeCloseTo(0.1);
    expect(b.learner).toBeCloseTo(0.2);
    expect(b.sandboxes).toBeCloseTo(0.3);
    expect(b.platform).toBeCloseTo(0.05);
    expect(b.other).toBeCloseTo(0.15);
    expect(Object.values(b).reduce((a, v) => a + v, 0)).toBeCloseTo(0.8);
  });

  it('scales the parts down together when they exceed busy (read a moment apart), other 0', () => {
    const b = nodeCpuBreakdown({ busy: 4, total: 10, parts: { workers: 2, learner: 0, sandboxes: 6, platform: 0 } })!;
    expect(b.workers).toBeCloseTo(0.1);
    expect(b.sandboxes).toBeCloseTo(0.3);
    expect(b.other).toBe(0);
  });

  it('is null without elapsed time and ignores negative readings', () => {
    expect(nodeCpuBreakdown({ busy: 0, total: 0, parts: { workers: 0, learner: 0, sandboxes: 0, platform: 0 } })).toBeNull();
    const b = nodeCpuBreakdown({ busy: 5, total: 10, parts: { workers: -3, learner: 0, sandboxes: 1, platform: 0 } })!;
    expect(b.workers).toBe(0);
    expect(b.other).toBeCloseTo(0.4);
  });
});

describe('phases', () => {
  it("a job's own phase follows its queue", () => {
    expect(jobComputePhase('rl.episode')).toBe('sampling');
    expect(jobComputePhase('rl.learn')).toBe('learning');
    expect(jobComputePhase('rl.advance')).toBe('other');
  });
  it('sandbox CPU is sandbox execution unless grading or held-out evaluation runs it', () => {
    expect(sandboxPhase('sampling')).toBe('sandbox');
    expect(sandboxPhase('grading')).toBe('grading');
    expect(sandboxPhase('heldout_eval')).toBe('heldout_eval');
    expect(sandboxPhase('learning')).toBe('sandbox');
  });
});
