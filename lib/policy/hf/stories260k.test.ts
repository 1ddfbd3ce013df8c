import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HfPolicy } from './hf-policy';
import { logSoftmaxRows, maxAbsDiff, runReference, type ReferenceResult } from './torch-reference';
import { STORIES260K_DIR } from '@/test/models';

// The real pretrained model in shared/: Karpathy's stories260K in Hugging Face Llama format
// (GQA 8/4 heads, tied embeddings, SentencePiece BPE tokenizer). Greedy decoding here (one
// left-padded batch, KV cache) must match the PyTorch reference token for token, and read as
// English.

const DIR = STORIES260K_DIR;
const PROMPTS = ['Once upon a time', 'Lily and Tom went to the park.', 'The little dog was sad because'];
const NEW = 60;
/** README: greedy decoding from <s> alone for 200 tokens reproduces llama2.c's expected output. */
const LONG = 200;
const TOL = 1e-4;

let policy: HfPolicy;
let ids: number[][];
let ref: ReferenceResult;

beforeAll(async () => {
  policy = await HfPolicy.load(DIR, { providers: ['cpu'], threads: 1 });
  ids = [[1], ...PROMPTS.map((p) => policy.tokenizer.encode(p))];
  ref = await runReference({
    runs: [
      { dir: DIR, logits: [ids[1]!], greedy: { prompts: ids, new: NEW, eos: policy.model.eosTokenIds } },
      { dir: DIR, greedy: { prompts: [[1]], new: LONG, eos: policy.model.eosTokenIds } },
    ],
  });
}, 120_000);

afterAll(async () => {
  await policy?.release();
});

/** Words of a text that are plain English-looking words (letters, maybe an apostrophe). */
function wordStats(text: string) {
  const words = text.split(/\s+/).filter(Boolean);
  const plain = words.filter((w) => /^[A-Za-z]+('[a-z]+)?[.,!?"]*$/.test(w.replace(/^"/, '')));
  const common = new Set(['the', 'a', 'was', 'and', 'to', 'he', 'she', 'they', 'it', 'her', 'his', 'with', 'in', 'of']);
  return { words: words.length, plain: plain.length, common: words.filter((w) => common.has(w.toLowerCase().replace(/[^a-z]/g, ''))).length };
}

describe('stories260K (real pretrained Llama checkpoint)', () => {
  it('loads the checkpoint as config.json describes it', () => {
    const c = policy.config;
    expect(c).toMatchObject({
      architecture: 'LlamaForCausalLM',
      vocabSize: 512,
      hiddenSize: 64,
      nLayers: 5,
      nHeads: 8,
      nKvHeads: 4,
      headDim: 8,
      tieWordEmbeddings: true,
    });
    expect(policy.model.parameters).toBeGreaterThan(250_000);
    expect(policy.model.parameters).toBeLessThan(270_000);
    expect(ids[1]).toEqual([1, 403, 407, 261, 378]); // BOS + SentencePiece's ids for "Once upon a time"
    // One copy of the weights: the tensors every session is fed wrap the loaded arrays.
    for (const [name, w] of policy.model.weights) expect(policy.params[name]!.data, name).toBe(w);
  });

  it(`logits of a prompt match the PyTorch reference within ${TOL}`, async () => {
    const ours = await policy.logits(ids[1]!);
    const theirs = ref.runs[0]!.logits[0]!;
    const d = maxAbsDiff(ours, theirs);
    console.log(
      `stories260K: max |logit diff| ${d.toExponential(2)}, max |logprob diff| ${maxAbsDiff(logSoftmaxRows(ours, 512), logSoftmaxRows(theirs, 512)).toExponential(2)}`,
    );
    expect(d).toBeLessThan(TOL);
  });

  it('batched greedy decoding with the KV cache matches the reference token for token and reads as English', async () => {
    const t0 = performance.now();
    const out = await policy.sample(ids, { maxNewTokens: NEW, temperature: 0 });
    const seconds = (performance.now() - t0) / 1000;
    const tokens = out.reduce((n, o) => n + o.tokens.length, 0);
    console.log(`stories260K: ${tokens} tokens in ${seconds.toFixed(2)} s (batch ${ids.length}, ${(tokens / seconds).toFixed(0)} tokens/s)`);
    out.forEach((o, b) => {
      const expected = ref.runs[0]!.greedy![b]!;
      expect(o.tokens, `prompt ${b}`).toEqual(expected.tokens);
      expect(maxAbsDiff(o.logprobs, expected.logprobs)).toBeLessThan(TOL);
      console.log(`  ${JSON.stringify(b === 0 ? '<s>' : PROMPTS[b - 1])} → ${JSON.stringify(o.text)}`);
      const s = wordStats(o.text);
      expect(s.words).toBeGreaterThan(8);
      expect(s.plain / s.words, o.text).toBeGreaterThan(0.9);
      expect(s.common, o.text).toBeGreaterThan(2);
    });
    // Known continuation (greedy is deterministic): the model's favourite opening.
    expect(out[1]!.text.startsWith(', there was a little girl named Lily.')).toBe(true);
  });

  it(`greedy decoding from <s> alone for ${LONG} tokens matches the reference (long KV cache)`, async () => {
    const [out] = await policy.sample([[1]], { maxNewTokens: LONG, temperature: 0 });
    const expected = ref.runs[1]!.greedy![0]!;
    expect(out!.tokens).toHaveLength(LONG);
    expect(out!.tokens).toEqual(expected.tokens);
    expect(maxAbsDiff(out!.logprobs, expected.logprobs)).toBeLessThan(TOL);
    expect(wordStats(out!.text).plain / wordStats(out!.text).words).toBeGreaterThan(0.9);
  });
});
