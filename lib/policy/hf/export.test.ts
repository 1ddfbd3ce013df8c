import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORIES260K_DIR } from '@/test/models';
import { exportHfDirectory } from './export-hf';
import { mergeLora, peftTensorName, writePeftAdapter, type LoraTensor } from './export-peft';
import { HfPolicy } from './hf-policy';
import { readHfConfig } from './model-dir';
import { openCheckpoint, readHeader, readTensorF32 } from './safetensors';
import { f32ToBf16Bits, f32ToF16Bits } from '../half-floats';
import { writeSafetensorsFile } from './safetensors-writer';
import { torchPython } from './torch-reference';
import { loadHfWeights } from './weights';
import { Rng } from '@/core/random';

// Exports checked against what reads them: our own loader and ONNX forward (re-importing an
// export gives identical logits) and, independently, PyTorch (tensor names, shapes and values
// of a PEFT adapter; PEFT's merge W + B·A·alpha/r; torch's own f32 → f16/bf16 rounding).

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-export-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function torchCheck(req: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(torchPython(), [path.join(import.meta.dirname, 'export_check_torch.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(Buffer.concat(out).toString()) as Record<string, unknown>)
        : reject(new Error(`export_check_torch.py exited ${code}: ${Buffer.concat(err).toString()}`)),
    );
    child.stdin.end(JSON.stringify(req));
  });
}

const PROMPT = [1, 403, 407, 261, 378, 432, 383, 286, 261, 376];

async function logitsOf(dir: string): Promise<Float32Array> {
  const p = await HfPolicy.load(dir, { providers: ['cpu'] });
  try {
    return await p.logits(PROMPT);
  } finally {
    await p.release();
  }
}

/** A deterministic pseudo-random float32 array in [-scale, scale). */
function noise(n: number, seed: number, scale: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: n }, () => rng.uniform(-scale, scale));
}

describe('Hugging Face export', () => {
  it('re-importing an f32 export gives identical logits, with the same tensors, bytes and tokenizer files', async () => {
    const out = path.join(tmp, 'f32-export');
    const r = await exportHfDirectory({ from: STORIES260K_DIR, out });
    expect(r.dtypes).toEqual({ F32: 47 });
    expect(r.files.map((f) => f.path)).toEqual([
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer.model',
      'tokenizer_config.json',
    ]);
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json'])
      expect(await fs.readFile(path.join(out, f))).toEqual(await fs.readFile(path.join(STORIES260K_DIR, f)));
    const [a, b] = [await logitsOf(STORIES260K_DIR), await logitsOf(out)];
    expect(b.length).toBe(PROMPT.length * 512);
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
  });

  it('keeps a bf16 and an f16 checkpoint in its dtype, bit for bit, and its logits', async () => {
    const config = await readHfConfig(STORIES260K_DIR);
    const { weights } = await loadHfWeights(STORIES260K_DIR, config);
    for (const dtype of ['BF16', 'F16'] as const) {
      // a half-precision copy of stories260K, as a hub checkpoint in that dtype would be
      const src = path.join(tmp, `src-${dtype}`);
      await fs.cp(STORIES260K_DIR, src, { recursive: true });
      const h = await readHeader(path.join(STORIES260K_DIR, 'model.safetensors'));
      await writeSafetensorsFile(
        path.join(src, 'model.safetensors'),
        [...h.tensors.values()].map((t) => ({ name: t.name, shape: t.shape, dtype, data: weights.get(t.name)! })),
      );
      const out = path.join(tmp, `export-${dtype}`);
      const r = await exportHfDirectory({ from: src, out });
      expect(r.dtypes).toEqual({ [dtype]: 47 });
      // every tensor with the source's dtype, shape and bytes (the order in the file may differ)
      const [hs, ho] = [await readHeader(path.join(src, 'model.safetensors')), await readHeader(path.join(out, 'model.safetensors'))];
      const [bs, bo] = [await fs.readFile(hs.file), await fs.readFile(ho.file)];
      expect([...ho.tensors.keys()].sort()).toEqual([...hs.tensors.keys()].sort());
      for (const [name, s] of hs.tensors) {
        const o = ho.tensors.get(name)!;
        expect([o.dtype, o.shape]).toEqual([s.dtype, s.shape]);
        const bytes = (b: Buffer, start: number, e: { begin: number; end: number }) => b.subarray(start + e.begin, start + e.end);
        expect(bytes(bo, ho.dataStart, o).equals(bytes(bs, hs.dataStart, s)), name).toBe(true);
      }
      const [a, b] = [await logitsOf(src), await logitsOf(out)];
      expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    }
  });

  it('merges a sharded checkpoint into one model.safetensors', async () => {
    const config = await readHfConfig(STORIES260K_DIR);
    const { weights } = await loadHfWeights(STORIES260K_DIR, config);
    const src = path.join(tmp, 'sharded');
    await fs.cp(STORIES260K_DIR, src, { recursive: true });
    await fs.rm(path.join(src, 'model.safetensors'));
    const names = [...weights.keys()];
    const shapes = (await readHeader(path.join(STORIES260K_DIR, 'model.safetensors'))).tensors;
    const shards = [names.slice(0, 20), names.slice(20)];
    const weightMap: Record<string, string> = {};
    for (const [i, part] of shards.entries()) {
      const file = `model-0000${i + 1}-of-00002.safetensors`;
      await writeSafetensorsFile(
        path.join(src, file),
        part.map((n) => ({ name: n, shape: shapes.get(n)!.shape, dtype: 'F32', data: weights.get(n)! })),
      );
      for (const n of part) weightMap[n] = file;
    }
    await fs.writeFile(path.join(src, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    const out = path.join(tmp, 'sharded-export');
    await exportHfDirectory({ from: src, out });
    expect((await fs.readdir(out)).filter((f) => f.includes('safetensors'))).toEqual(['model.safetensors']);
    const [a, b] = [await logitsOf(STORIES260K_DIR), await logitsOf(out)];
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
  });

  it('narrows f32 to f16 and bf16 exactly as torch does (round to nearest even, subnormals, overflow, NaN)', async () => {
    const special = [
      0,
      -0,
      1,
      -1,
      65504,
      65520,
      65519.99,
      1e6,
      -1e6,
      6.1e-5,
      5.96e-8,
      2.98e-8,
      2.99e-8,
      1e-10,
      3.0e38,
      Infinity,
      -Infinity,
      NaN,
      1 + 2 ** -8,
      1 + 3 * 2 ** -9,
      1 + 2 ** -11,
      1 + 3 * 2 ** -12,
    ];
    const values = new Float32Array([...special, ...noise(4000, 7, 4), ...noise(2000, 9, 1e-5), ...noise(1000, 11, 70000)]);
    const file = path.join(tmp, 'rounding.safetensors');
    await writeSafetensorsFile(file, [
      { name: 'f32', shape: [values.length], dtype: 'F32', data: values },
      { name: 'f16', shape: [values.length], dtype: 'F16', data: values },
      { name: 'bf16', shape: [values.length], dtype: 'BF16', data: values },
    ]);
    const r = (await torchCheck({ rounding: { file } })).rounding as { f16Mismatches: number; bf16Mismatches: number; count: number };
    expect(r).toEqual({ f16Mismatches: 0, bf16Mismatches: 0, count: values.length });
    expect(f32ToBf16Bits(1 + 2 ** -8)).toBe(0x3f80); // a tie rounds to even (down)
    expect(f32ToF16Bits(65520)).toBe(0x7c00); // past the largest half: infinity
  });
});

describe('PEFT LoRA adapter export', () => {
  it("writes PEFT's names, shapes and values, and its merge equals torch's W + B@A*alpha/r", async () => {
    const config = await readHfConfig(STORIES260K_DIR);
    const { weights } = await loadHfWeights(STORIES260K_DIR, config);
    const r = 4;
    const adapterConfig = { r, loraAlpha: 8, targetModules: ['q_proj' as const, 'v_proj' as const, 'down_proj' as const], baseModelNameOrPath: 'stories260K' };
    const tensors = new Map<string, LoraTensor>();
    const dims = {
      q_proj: [config.nHeads * config.headDim, config.hiddenSize],
      v_proj: [config.nKvHeads * config.headDim, config.hiddenSize],
      down_proj: [config.hiddenSize, config.intermediateSize],
    };
    let seed = 1;
    for (let l = 0; l < config.nLayers; l++) {
      for (const m of adapterConfig.targetModules) {
        const [outDim, inDim] = dims[m] as [number, number];
        tensors.set(peftTensorName(l, m, 'A'), { shape: [r, inDim], data: noise(r * inDim, seed++, 0.1) });
        tensors.set(peftTensorName(l, m, 'B'), { shape: [outDim, r], data: noise(outDim * r, seed++, 0.1) });
      }
    }
    const adapterDir = path.join(tmp, 'adapter');
    const written = await writePeftAdapter(adapterDir, { config: adapterConfig, tensors, base: config });
    expect(written.tensors).toBe(30);
    const mergedDir = path.join(tmp, 'merged');
    await exportHfDirectory({ from: STORIES260K_DIR, out: mergedDir, weights: mergeLora(weights, adapterConfig, tensors, config) });

    const got = await torchCheck({ adapter: adapterDir, merge: { base: STORIES260K_DIR, adapter: adapterDir, merged: mergedDir } });
    const adapter = got.adapter as { config: Record<string, unknown>; tensors: Record<string, { dtype: string; shape: number[]; values: number[] }> };
    expect(adapter.config).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: 4,
      lora_alpha: 8,
      target_modules: ['q_proj', 'v_proj', 'down_proj'],
      base_model_name_or_path: 'stories260K',
    });
    expect(Object.keys(adapter.tensors).sort()).toEqual([...tensors.keys()].sort());
    expect(Object.keys(adapter.tensors)).toContain('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight');
    expect(Object.keys(adapter.tensors)).toContain('base_model.model.model.layers.4.mlp.down_proj.lora_B.weight');
    for (const [name, t] of tensors) {
      const py = adapter.tensors[name]!;
      expect(py.shape, name).toEqual(t.shape);
      expect(py.dtype).toBe('F32');
      expect(Float32Array.from(py.values)).toEqual(t.data);
    }
    const merge = got.merge as { adapted: string[]; maxAbsDiff: Record<string, number | null>; missingInMerged: string[] };
    expect(merge.adapted).toHaveLength(15);
    expect(merge.missingInMerged).toEqual([]);
    const worst = Math.max(...Object.values(merge.maxAbsDiff).map((d) => d ?? Infinity));
    expect(worst).toBeLessThan(1e-6);
    // the adapter really changed the adapted weights (a no-op merge would pass the check above too)
    const merged = await openCheckpoint(mergedDir);
    const q0 = await readTensorF32(merged.files[0]!, 'model.layers.0.self_attn.q_proj.weight');
    const base0 = weights.get('model.layers.0.self_attn.q_proj.weight')!;
    expect(Math.max(...q0.map((x, i) => Math.abs(x - base0[i]!)))).toBeGreaterThan(1e-3);
  });

  it('refuses tensors that are not a PEFT adapter for this base', async () => {
    const config = await readHfConfig(STORIES260K_DIR);
    const c = { r: 2, loraAlpha: 4, targetModules: ['q_proj' as const], baseModelNameOrPath: 'stories260K' };
    const A = { shape: [2, 64], data: new Float32Array(128) };
    const B = { shape: [64, 2], data: new Float32Array(128) };
    const write = (t: Map<string, LoraTensor>) => writePeftAdapter(path.join(tmp, `bad-${Math.random()}`), { config: c, tensors: t, base: config });
    await expect(write(new Map([[peftTensorName(0, 'q_proj', 'A'), A]]))).rejects.toThrow(
      /has no base_model\.model\.model\.layers\.0\.self_attn\.q_proj\.lora_B\.weight/,
    );
    await expect(write(new Map([['model.layers.0.self_attn.q_proj.lora_A.weight', A]]))).rejects.toThrow(/is not a PEFT LoRA tensor name/);
    await expect(
      write(
        new Map([
          [peftTensorName(0, 'v_proj', 'A'), A],
          [peftTensorName(0, 'v_proj', 'B'), B],
        ]),
      ),
    ).rejects.toThrow(/v_proj is not in target_modules/);
    await expect(
      write(
        new Map([
          [peftTensorName(0, 'q_proj', 'A'), { shape: [2, 32], data: new Float32Array(64) }],
          [peftTensorName(0, 'q_proj', 'B'), B],
        ]),
      ),
    ).rejects.toThrow(/does not fit model\.layers\.0\.self_attn\.q_proj\.weight \[64, 64\]/);
  });
});
