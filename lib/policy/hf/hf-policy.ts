import { f32, i64, type LoadedSession, type Provider, type ort } from '../onnx-session';
import { generate, type Completion, type SampleOptionsInput } from '../sample';
import { NEG_INF } from '../model';
import type { HfModelConfig } from './config';
import { buildHfInferenceGraph, type HfInferenceGraphSpec } from './inference-graph';
import { loadHfModelDir, type HfModelDir } from './model-dir';
import type { ChatMessage, HfTokenizer } from './tokenizer';
import { hfParamSpecs } from './weights';
import { SessionCache } from '../session-cache';
import { mergeLora } from './export-peft';
import { matmulMode, matmulModeName, type Precision } from '../onnx/mixed-precision';
import type { LoraAdapter } from './lora-adapter';

export type HfPolicyOptions = {
  providers?: Provider[];
  /** Threads for prefill / full-sequence sessions. */
  threads?: number;
  /** Threads for incremental decoding (1 by default, as for the byte model: decode steps are many tiny ops). */
  decodeThreads?: number;
  /** Matrix products in float32 (default) or on fp16 / bf16 operands (onnx/mixed-precision.ts). */
  precision?: Precision;
};

export type HfCompletion = Completion & { text: string };

/** The adapter a policy samples with: its version and what the merged weights cost. */
export type AppliedAdapter = { version?: string | number; weights: number; bytes: number };

/**
 * A Hugging Face decoder loaded for sampling. The weights are onnxruntime tensors made
 * once from the loaded float32 arrays and fed to every session as inputs: onnxruntime-node
 * wraps a CPU tensor's buffer without copying it, so prefill, decode and logits sessions
 * share one copy of the weights (initializers would be copied into each session).
 *
 * A LoRA adapter (`setAdapter`) is merged into the weights it adapts, W + B·A·alpha/r, once
 * per adapter version: the graphs stay the base model's, the base tensors stay untouched
 * and shared, and only the adapted weights get a second, merged copy fed in their place.
 */
export class HfPolicy {
  private readonly cache = new SessionCache();
  /** Merged copies of the adapted weights, fed in place of the base ones (empty: no adapter). */
  private merged: Record<string, ort.Tensor> = {};
  private applied: AppliedAdapter | undefined;
  /** the execution provider the latest session ran on */
  get provider(): Provider {
    return this.cache.provider;
  }

  private constructor(
    readonly model: HfModelDir,
    /** The base weights, held once; an adapter never replaces them (`setAdapter`). */
    readonly params: Record<string, ort.Tensor>,
    private readonly opts: HfPolicyOptions,
  ) {}

  static async load(dir: string, opts: HfPolicyOptions = {}): Promise<HfPolicy> {
    const model = await loadHfModelDir(dir);
    const params: Record<string, ort.Tensor> = {};
    for (const s of hfParamSpecs(model.config)) params[s.name] = f32(model.weights.get(s.name)!, s.shape);
    return new HfPolicy(model, params, opts);
  }

  get config(): HfModelConfig {
    return this.model.config;
  }

  /** The adapter sampling and `logits` apply, if any. */
  get adapter(): AppliedAdapter | undefined {
    return this.applied;
  }

  /**
   * Sample with a LoRA adapter (undefined: the base model again). The merge runs once per
   * `version` (pass the trainer's step; the same version again is a no-op), and costs one
   * float32 copy of each adapted weight, the base is not copied. Calls already running keep
   * the weights they started with.
   */
  setAdapter(adapter: LoraAdapter | undefined, o: { version?: string | number } = {}): void {
    if (!adapter) {
      this.merged = {};
      this.applied = undefined;
      return;
    }
    const version = o.version;
    if (version !== undefined && this.applied?.version === version) return;
    const base = new Map(Object.entries(this.params).map(([n, t]) => [n, t.data as Float32Array]));
    const all = mergeLora(base, adapter.config, adapter.tensors, this.config);
    const shapes = new Map(hfParamSpecs(this.config).map((s) => [s.name, s.shape]));
    const merged: Record<string, ort.Tensor> = {};
    let bytes = 0;
    for (const [n, w] of all) {
      if (w === base.get(n)) continue;
      merged[n] = f32(w, shapes.get(n)!);
      bytes += w.byteLength;
    }
    this.merged = merged;
    this.applied = { version, weights: Object.keys(merged).length, bytes };
  }

  /**
   * Sample with these tensors in place of the base ones of the same names (a full
   * fine-tuning trainer's current weights: fed as they are, no copy); an empty record
   * returns to the base model. Replaces any adapter.
   */
  useWeights(tensors: Record<string, ort.Tensor>, o: { version?: string | number } = {}): void {
    const shapes = new Map(hfParamSpecs(this.config).map((s) => [s.name, s.shape]));
    let bytes = 0;
    for (const [n, t] of Object.entries(tensors)) {
      const shape = shapes.get(n);
      if (!shape || shape.join() !== t.dims.join()) throw new Error(`${n} is not a weight of this model with shape [${t.dims.join(', ')}]`);
      bytes += t.size * 4;
    }
    this.merged = { ...tensors };
    this.applied = Object.keys(tensors).length ? { version: o.version, weights: Object.keys(tensors).length, bytes } : undefined;
  }

  /** Every weight feed: the base tensors, with the adapted ones replaced by their merged copies. */
  private feeds(): Record<string, ort.Tensor> {
    return { ...this.params, ...this.merged };
  }

  get tokenizer(): HfTokenizer {
    return this.model.tokenizer;
  }

  get precision(): Precision {
    return this.opts.precision ?? 'fp32';
  }

  /** What the latest session's matrix products ran in on its provider (`fp32`, `fp16`, `bf16`, `bf16-emulated`). */
  get matmuls(): string {
    return matmulModeName(matmulMode(this.precision, this.provider));
  }

  /** A session for an inference graph, built for the precision on the provider it loads on. */
  private session(
    key: string,
    graph: (s: Omit<HfInferenceGraphSpec, 'config'>) => Omit<HfInferenceGraphSpec, 'config'>,
    threads = this.opts.threads,
  ): Promise<LoadedSession> {
    const build = (provider: Provider) =>
      buildHfInferenceGraph({ config: this.config, ...graph({ withPast: false, matmuls: matmulMode(this.precision, provider) }) }).toBytes();
    return this.cache.get(`${key}:${this.precision}`, build, { providers: this.opts.providers, threads });
  }

  /**
   * Batched sampling with the KV cache (left padding, per-row seeded RNG: sample.ts).
   * String prompts are encoded as transformers would (with the tokenizer's special tokens,
   * e.g. BOS); generation ends at any of the model's EOS ids.
   */
  async sample(
    prompts: (string | number[])[],
    o: Omit<SampleOptionsInput, 'eos'> = {},
    onToken?: (row: number, id: number) => boolean | void,
  ): Promise<HfCompletion[]> {
    const ids = prompts.map((p) => (typeof p === 'string' ? this.tokenizer.encode(p) : p));
    const c = this.config;
    for (const p of ids) {
      const bad = p.find((t) => !Number.isInteger(t) || t < 0 || t >= c.vocabSize);
      if (bad !== undefined) throw new Error(`token id ${bad} is outside the model's vocabulary (0..${c.vocabSize - 1})`);
    }
    const [prefill, decode] = await Promise.all([
      this.session('prefill', (s) => s),
      this.session('decode', (s) => ({ ...s, withPast: true }), this.opts.decodeThreads ?? 1),
    ]);
    const [eos, ...otherEos] = this.model.eosTokenIds;
    const out = await generate(
      {
        prefill: prefill.session,
        decode: decode.session,
        params: this.feeds(),
        model: { vocabSize: c.vocabSize, nLayers: c.nLayers, maxSeqLen: c.maxPositionEmbeddings },
        pad: this.tokenizer.pad ?? eos ?? 0,
      },
      ids,
      { ...o, eos, stop: [...(o.stop ?? []), ...otherEos.map((t) => [t])] },
      onToken,
    );
    return out.map((r) => ({ ...r, text: this.tokenizer.decode(r.tokens) }));
  }

  /** Sample a reply to a conversation rendered with the model's chat template. */
  async sampleChat(messages: ChatMessage[], o: Omit<SampleOptionsInput, 'eos'> = {}): Promise<HfCompletion> {
    return (await this.sample([this.tokenizer.encodeChat(messages, { addGenerationPrompt: true })], o))[0]!;
  }

  /** Logits of every position of one sequence, [S × vocab] row-major (parity checks, scoring). */
  async logits(tokens: number[]): Promise<Float32Array> {
    const S = tokens.length;
    const { session } = await this.session('logits', (s) => ({ ...s, allLogits: true }));
    const mask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) mask[i * S + j] = NEG_INF;
    const res = await session.run({
      ...this.feeds(),
      tokens: i64(tokens, [1, S]),
      positions: i64(
        tokens.map((_, i) => i),
        [1, S],
      ),
      attn_mask: f32(mask, [1, 1, S, S]),
    });
    return res.logits!.data as Float32Array;
  }

  async release(): Promise<void> {
    await this.cache.release();
  }
}
