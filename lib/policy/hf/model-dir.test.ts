import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHfConfig } from './config';
import { loadHfModelDir } from './model-dir';
import { f16ToF32 } from '../half-floats';
import { writeSafetensors } from './safetensors';
import { hfParamSpecs } from './weights';
import { STORIES260K_DIR } from '@/test/models';

const STORIES = STORIES260K_DIR;
const CONFIG = {
  architectures: ['Qwen2ForCausalLM'],
  vocab_size: 512,
  hidden_size: 16,
  intermediate_size: 24,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  max_position_embeddings: 32,
  tie_word_embeddings: false,
  eos_token_id: 2,
};

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-hf-dir-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function tensors(config = CONFIG) {
  const m = new Map<string, { shape: number[]; data: Float32Array }>();
  let k = 0;
  for (const s of hfParamSpecs(parseHfConfig(config))) {
    const n = s.shape.reduce((a, b) => a * b, 1);
    m.set(s.name, { shape: s.shape, data: Float32Array.from({ length: n }, () => ((k++ * 7919) % 1000) / 1000 - 0.5) });
  }
  return m;
}

/** A complete model directory (weights from our writer), then `mutate` breaks one thing. */
async function modelDir(name: string, mutate?: (dir: string, t: ReturnType<typeof tensors>) => Promise<void>) {
  const dir = path.join(tmp, name);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(CONFIG));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) await fs.copyFile(path.join(STORIES, f), path.join(dir, f));
  const t = tensors();
  await writeSafetensors(path.join(dir, 'model.safetensors'), t);
  await mutate?.(dir, t);
  return dir;
}

describe('loading a Hugging Face model directory', () => {
  it('reads config, tokenizer and every weight; generation_config.json decides the EOS ids', async () => {
    const dir = await modelDir('ok', (d) => fs.writeFile(path.join(d, 'generation_config.json'), JSON.stringify({ eos_token_id: [2, 7] })));
    const m = await loadHfModelDir(dir);
    const t = tensors();
    expect([...m.weights.keys()].sort()).toEqual([...t.keys()].sort());
    for (const [k, v] of t) expect(m.weights.get(k), k).toEqual(v.data);
    expect(m.storedDtypes).toEqual({ F32: t.size });
    expect(m.eosTokenIds).toEqual([2, 7]);
    expect(m.config.qkvBias).toBe(true);
  });

  it('widens float16 exactly (normals, subnormals, infinities, NaN)', () => {
    expect([0x3c00, 0xc000, 0x7bff, 0x0001, 0x0400, 0x7c00, 0xfc00, 0x8000].map(f16ToF32)).toEqual([1, -2, 65504, 2 ** -24, 2 ** -14, Infinity, -Infinity, -0]);
    expect(f16ToF32(0x7e00)).toBeNaN();
  });

  it('names the missing or invalid file', async () => {
    const expectError = async (name: string, mutate: Parameters<typeof modelDir>[1], message: RegExp) =>
      expect(loadHfModelDir(await modelDir(name, mutate))).rejects.toThrow(message);
    await expectError('no-config', (d) => fs.rm(path.join(d, 'config.json')), /no-config: no config\.json/);
    await expectError(
      'bad-json',
      (d) => fs.writeFile(path.join(d, 'config.json'), '{"architectures": ['),
      /bad-json\/config\.json: the model config is not valid JSON/,
    );
    await expectError(
      'bad-arch',
      (d) => fs.writeFile(path.join(d, 'config.json'), JSON.stringify({ ...CONFIG, architectures: ['BertModel'] })),
      /bad-arch\/config\.json: architectures \["BertModel"\] is not supported/,
    );
    await expectError('no-weights', (d) => fs.rm(path.join(d, 'model.safetensors')), /no-weights: no weights \(expected model\.safetensors/);
    await expectError('no-tokenizer', (d) => fs.rm(path.join(d, 'tokenizer.json')), /no-tokenizer\/tokenizer\.json: cannot read/);
    await expectError(
      'missing-tensor',
      async (d, t) => {
        t.delete('model.layers.0.self_attn.k_proj.bias');
        await writeSafetensors(path.join(d, 'model.safetensors'), t);
      },
      /missing-tensor\/model\.safetensors: missing tensor model\.layers\.0\.self_attn\.k_proj\.bias/,
    );
    await expectError(
      'bad-shape',
      async (d, t) => {
        t.set('model.norm.weight', { shape: [8, 2], data: new Float32Array(16) });
        await writeSafetensors(path.join(d, 'model.safetensors'), t);
      },
      /bad-shape\/model\.safetensors: tensor model\.norm\.weight has shape \[8, 2\] but config\.json implies \[16\]/,
    );
    await expectError(
      'truncated',
      async (d) => {
        const f = path.join(d, 'model.safetensors');
        await fs.truncate(f, (await fs.stat(f)).size - 4);
      },
      /truncated\/model\.safetensors: tensor .* do not match its shape or the file size/,
    );
    await expectError(
      'int8',
      async (d) => {
        const json = JSON.stringify({ 'model.norm.weight': { dtype: 'I8', shape: [16], data_offsets: [0, 16] } });
        const len = Buffer.alloc(8);
        len.writeBigUInt64LE(BigInt(json.length));
        await fs.writeFile(path.join(d, 'model.safetensors'), Buffer.concat([len, Buffer.from(json), Buffer.alloc(16)]));
      },
      /int8\/model\.safetensors: tensor model\.norm\.weight has dtype I8; supported dtypes are F32, F16, BF16/,
    );
    await expectError(
      'shard-missing',
      async (d) => {
        await fs.writeFile(
          path.join(d, 'model.safetensors.index.json'),
          JSON.stringify({ weight_map: { 'model.norm.weight': 'model-00002-of-00002.safetensors' } }),
        );
      },
      /model\.safetensors\.index\.json names shard model-00002-of-00002\.safetensors, which is missing/,
    );
  });

  it('loads sharded checkpoints through the index', async () => {
    const dir = await modelDir('sharded', async (d, t) => {
      await fs.rm(path.join(d, 'model.safetensors'));
      const names = [...t.keys()];
      const shards = [names.filter((_, i) => i % 2 === 0), names.filter((_, i) => i % 2 === 1)];
      const weightMap: Record<string, string> = {};
      for (const [i, group] of shards.entries()) {
        const file = `model-0000${i + 1}-of-00002.safetensors`;
        await writeSafetensors(path.join(d, file), new Map(group.map((n) => [n, t.get(n)!])));
        for (const n of group) weightMap[n] = file;
      }
      await fs.writeFile(path.join(d, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    });
    const m = await loadHfModelDir(dir);
    for (const [k, v] of tensors()) expect(m.weights.get(k), k).toEqual(v.data);
  });
});

describe('checkHfModelDir: what an import checks, without reading weight data (issue 31 §5)', () => {
  it('validates a 4 GiB checkpoint (a sparse file) from its header alone, in bounded memory', async () => {
    // shapes of a 1-layer model with a 128k vocabulary: 4 GiB of float32, a hole on disk
    const big = { ...CONFIG, vocab_size: 131072, hidden_size: 4096, intermediate_size: 4096, num_attention_heads: 32, num_key_value_heads: 8 };
    const dir = path.join(tmp, 'sparse');
    await fs.mkdir(dir);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) await fs.copyFile(path.join(STORIES, f), path.join(dir, f));
    await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(big));
    const header: Record<string, unknown> = {};
    let offset = 0;
    for (const s of hfParamSpecs(parseHfConfig(big))) {
      const bytes = s.shape.reduce((a, b) => a * b, 1) * 4;
      header[s.name] = { dtype: 'F32', shape: s.shape, data_offsets: [offset, offset + bytes] };
      offset += bytes;
    }
    expect(offset).toBeGreaterThan(4 * 1024 ** 3);
    const json = Buffer.from(JSON.stringify(header));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    const file = path.join(dir, 'model.safetensors');
    await fs.writeFile(file, Buffer.concat([len, json]));
    await fs.truncate(file, 8 + json.length + offset);
    const before = process.memoryUsage().arrayBuffers;
    const { checkHfModelDir } = await import('./model-dir');
    const inspected = await checkHfModelDir(dir);
    expect(inspected).toMatchObject({ storedDtypes: { F32: hfParamSpecs(parseHfConfig(big)).length } });
    expect(inspected.parameters * 4).toBe(offset);
    expect('weights' in inspected).toBe(false);
    // loading the weights would hold 4 GiB of Float32Arrays
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });
});
