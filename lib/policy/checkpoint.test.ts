import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint, listVersions, sha256 } from './checkpoint';
import { Policy } from './policy';
import { f32, i64, ort } from './onnx-session';
import { NEG_INF } from './model';
import { must } from '@/core/must';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-policy-'));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const opts = { providers: ['cpu' as const], threads: 1 };
const make = () => Policy.create({ model: { dModel: 32, nLayers: 2, nHeads: 2, dMlp: 64, maxSeqLen: 32 }, seed: 4, optim: { lr: 5e-3 } }, opts);
const demo = (p: Policy) => {
  const t = p.tokenizer.encode('checkpoint me', { bos: true });
  return [{ tokens: t, lossMask: t.map((_, i) => (i > 0 ? 1 : 0)) }];
};
const bits = (p: Policy) => Buffer.concat([...p.params.values()].map((t) => Buffer.from((t.data as Float32Array).buffer.slice(0))));

describe('checkpoints', () => {
  it('round trip is bit-exact (weights, optimizer state, tokenizer, config, digest)', async () => {
    const p = make();
    await p.trainStep(demo(p), { kind: 'sft' });
    const saved = await p.saveVersion(dir);
    expect(saved.version).toBe(1);
    expect(saved.sha256).toMatch(/^[0-9a-f]{64}$/);
    const { policy: q, sha256: digest } = await Policy.load(dir, opts);
    expect(digest).toBe(saved.sha256);
    expect(q.model).toEqual(p.model);
    expect(q.optim).toEqual(p.optim);
    expect(q.tokenizer.spec).toEqual(p.tokenizer.spec);
    expect(q.step).toBe(1);
    const again = encodeCheckpoint(q.state());
    expect(sha256(again)).toBe(saved.sha256); // identical bytes, moments included
    expect(decodeCheckpoint(again).tensors.get('m.wte')!.data).toEqual(p.state().tensors.get('m.wte')!.data);
    await p.release();
    await q.release();
  });

  it('resuming from a saved version continues exactly', async () => {
    const p = make();
    for (let i = 0; i < 2; i++) await p.trainStep(demo(p), { kind: 'sft' });
    const file = path.join(dir, 'resume.ckpt');
    await p.save(file);
    const { policy: q } = await Policy.load(file, opts);
    const a = await p.trainStep(demo(p), { kind: 'sft' });
    const b = await q.trainStep(demo(q), { kind: 'sft' });
    expect(b.loss).toBe(a.loss);
    expect(b.lr).toBe(a.lr);
    expect(bits(q).equals(bits(p))).toBe(true);
    await p.release();
    await q.release();
  });

  it('detects a corrupted file and lists versions', async () => {
    const p = make();
    const sub = path.join(dir, 'versions');
    await p.saveVersion(sub);
    const second = await p.saveVersion(sub);
    expect(await listVersions(sub)).toEqual([1, 2]);
    const buf = await fs.readFile(second.path);
    buf[buf.length - 1] = must(buf.at(-1), 'a byte in the checkpoint to corrupt') ^ 0xff;
    await fs.writeFile(second.path, buf);
    await expect(Policy.load(sub, opts)).rejects.toThrow(/sha256/);
    await p.release();
  });

  it('exports the inference model as a plain .onnx that a fresh session loads', async () => {
    const p = make();
    await p.trainStep(demo(p), { kind: 'sft' });
    const file = path.join(dir, 'policy.onnx');
    await p.exportOnnx(file);
    const session = await ort.InferenceSession.create(file);
    expect(session.inputNames).toEqual(['tokens', 'positions', 'attn_mask']);
    const prompt = p.tokenizer.encode('hey', { bos: true });
    const S = prompt.length;
    const mask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) mask[i * S + j] = NEG_INF;
    const res = await session.run({ tokens: i64(prompt, [1, S]), positions: i64([...prompt.keys()], [1, S]), attn_mask: f32(mask, [1, 1, S, S]) });
    expect(res.logits!.dims).toEqual([1, S, p.model.vocabSize]);
    const [greedy] = await p.sample([prompt], { maxNewTokens: 1, temperature: 0 });
    const lp = res.logprobs!.data as Float32Array;
    expect(lp[greedy!.tokens[0]!]).toBeCloseTo(greedy!.logprobs[0]!, 5);
    await session.release();
    await p.release();
  });
});
