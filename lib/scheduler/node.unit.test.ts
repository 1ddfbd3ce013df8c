import { describe, expect, it } from 'vitest';
import { capacityResources } from '@/core/resources';
import { nodeCapacity, nodeName } from './node';

const measured = () => ({ cpus: 16, memoryMb: 65_536, gpuCount: 2, gpuMemoryMb: 163_118, diskMb: 400_000 });

describe('scheduler node capacity', () => {
  it('is what was measured unless an env variable sets a figure', () => {
    expect(nodeCapacity({}, measured)).toEqual(measured());
    expect(nodeCapacity({ CRUCIBLE_NODE_CPUS: '2', CRUCIBLE_NODE_GPUS: '0', CRUCIBLE_NODE_GPU_MEMORY_MB: '0', CRUCIBLE_NODE_MEMORY_MB: '' }, measured)).toEqual(
      {
        cpus: 2,
        memoryMb: 65_536,
        gpuCount: 0,
        gpuMemoryMb: 0,
        diskMb: 400_000,
      },
    );
    expect(() => nodeCapacity({ CRUCIBLE_NODE_CPUS: 'two' }, measured)).toThrow('CRUCIBLE_NODE_CPUS must be a non-negative number, got "two"');
  });

  it("maps the registered capacity to the core's resources and names the node", () => {
    expect(capacityResources(measured())).toEqual({ cpu: 16, memoryMb: 65_536, gpu: 2, gpuMemoryMb: 163_118, diskMb: 400_000 });
    expect(nodeName({ CRUCIBLE_NODE: ' gpu-7 ' })).toBe('gpu-7');
    expect(nodeName({})).toBeTruthy();
  });
});
