import onnxPkg from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { Graph } from './graph';
import * as o from './ops';
import { createSession, f32 } from '../onnx-session';

const { onnx } = onnxPkg;

describe('graph serialization', () => {
  it('names a computed output after its producer instead of copying it through an Identity', async () => {
    const g = new Graph('aliases');
    const x = g.input('x', 'float32', [3]);
    const r = o.relu(x);
    const doubled = o.mul(r, 2); // r is also consumed inside the graph
    g.output(r, 'relu_out');
    g.output(r, 'relu_again'); // the second name for the same value needs a real Identity
    g.output(doubled, 'doubled');
    g.output(x, 'x_echo'); // graph inputs cannot be renamed in place
    const bytes = g.toBytes();
    const proto = onnx.ModelProto.decode(bytes);
    const ops = proto.graph!.node!.map((n) => n.opType);
    expect(ops.filter((op) => op === 'Identity')).toHaveLength(2); // relu_again and x_echo only
    expect(proto.graph!.node!.find((n) => n.opType === 'Relu')!.output).toEqual(['relu_out']);
    expect(proto.graph!.node!.find((n) => n.opType === 'Mul')!.input![0]).toBe('relu_out');
    const { session } = await createSession(bytes, { providers: ['cpu'], threads: 1 });
    const res = await session.run({ x: f32([-1, 2, -3], [3]) });
    expect(Array.from(res.relu_out!.data as Float32Array)).toEqual([0, 2, 0]);
    expect(Array.from(res.relu_again!.data as Float32Array)).toEqual([0, 2, 0]);
    expect(Array.from(res.doubled!.data as Float32Array)).toEqual([0, 4, 0]);
    expect(Array.from(res.x_echo!.data as Float32Array)).toEqual([-1, 2, -3]);
    await session.release();
  });
});
