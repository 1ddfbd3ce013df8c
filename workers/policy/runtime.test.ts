import { describe, expect, it } from 'vitest';
import { Graph } from './onnx/graph';
import * as o from './onnx/ops';
import { createSession } from './runtime';

const model = () => {
  const g = new Graph('tiny');
  g.output(o.relu(g.input('x', 'float32', [2])), 'y');
  return g.toBytes();
};

describe('execution providers', () => {
  it('tries CUDA first and falls back to the CPU with a reason when CUDA does not load', async () => {
    const reasons: string[] = [];
    const { session, provider } = await createSession(model(), { onFallback: (p, why) => reasons.push(`${p}: ${why}`) });
    if (provider === 'cpu') {
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toMatch(/^cuda: .+/);
    } else expect(reasons).toEqual([]);
    await session.release();
  });

  it('surfaces a broken model instead of reporting a missing provider', async () => {
    const g = new Graph('broken');
    const x = g.input('x', 'float32', [2]);
    g.output(g.node('NoSuchOp', [x], [{ dtype: 'float32', shape: [2] }])[0]!, 'y');
    await expect(createSession(g.toBytes(), { providers: ['cpu'] })).rejects.toThrow(/NoSuchOp/);
  });
});
