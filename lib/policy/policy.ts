import type { Precision } from './onnx/mixed-precision';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { packBatch, paddedLength, type TrainSequence } from './batch';
import { listVersions, readCheckpoint, versionFile, writeCheckpoint, type CheckpointState } from './checkpoint';
import { buildInferenceGraph, buildScoreGraph, buildTrainGraph, type TrainGraphSpec } from './graphs';
import type { LossConfigInput, MetricName } from './losses';
import { initParams, ModelConfig, ModelFields, paramSpecs } from './model';
import { OptimConfig, type OptimConfigInput } from './optim';
import { f32, ort, type LoadedSession, type Provider } from './onnx-session';
import { generate, type Completion, type SampleOptionsInput } from './sample';
import { BYTE_TOKENIZER, Tokenizer } from './tokenizer';
import { SessionCache } from './session-cache';
import { pick, planStep, runStep, type Params } from './train-step';
import type { RlPolicy } from './rl-policy';

export type { Params };

export type StepReport = Record<MetricName, number> & {
  step: number;
  /**
   * The update was not applied: the loss, the gradient norm or an updated weight was not
   * finite, so weights, optimizer moments and the step count stay as they were (the
   * non-finite loss / gradNorm are reported as they came out, not as 0).
   */
  skipped: boolean;
  gradNorm: number;
  lr: number;
  tokens: number;
  sequences: number;
  microBatches: number;
  provider: Provider;
  /**
   * What the step's matrix products ran in (Hugging Face models: `fp32`, `fp16`, `bf16`, or
   * `bf16-emulated` on the CPU provider); absent for the byte model, which is float32.
   */
  matmuls?: string;
  /** The float16 loss scale the step used (absent unless training in fp16). */
  lossScale?: number;
  seconds: number;
};

export type SampledCompletion = Completion & { text: string };

export type PolicyOptions = {
  providers?: Provider[];
  threads?: number;
  /**
   * Threads for incremental decoding. One decode step is a few hundred tiny ops, where
   * thread-pool synchronisation costs more than it saves (measured 2x faster with 1 thread
   * on the 1M and 10M bench models), so the default is 1; scale sampling by batching.
   */
  decodeThreads?: number;
  /**
   * Hugging Face models: matrix products in float32 (default), or on fp16 / bf16 operands
   * with float32 master weights (onnx/mixed-precision.ts). The byte model is float32 only.
   */
  precision?: Precision;
};

export const CreateOptions = z.object({
  model: ModelFields.partial().optional(),
  optim: z.custom<OptimConfigInput>().optional(),
  seed: z.number().int().default(0),
});

/** Small defaults: ~0.2M parameters, fast on a CPU. */
export const DEFAULT_MODEL = { vocabSize: BYTE_TOKENIZER.vocabSize, dModel: 64, nLayers: 2, nHeads: 4, dMlp: 256, maxSeqLen: 256 };

/**
 * The policy: weights and AdamW state kept as onnxruntime tensors, with sessions for
 * sampling (KV cache), scoring and training steps. This is the surface the RL loop uses:
 * create/load, sample, score, trainStep, save.
 */
export class Policy implements RlPolicy {
  readonly kind = 'byte' as const;
  private readonly cache = new SessionCache();
  /** The provider of the last session used (recorded with each step). */
  /** the execution provider the latest session ran on */
  get provider(): Provider {
    return this.cache.provider;
  }

  private constructor(
    readonly model: ModelConfig,
    readonly optim: OptimConfig,
    readonly tokenizer: Tokenizer,
    public params: Params,
    private moments: { m: Params; v: Params },
    public step: number,
    private readonly opts: PolicyOptions,
  ) {}

  static create(input: z.input<typeof CreateOptions> = {}, opts: PolicyOptions = {}): Policy {
    const c = CreateOptions.parse(input);
    const model = ModelConfig.parse({ ...DEFAULT_MODEL, ...c.model });
    if (model.vocabSize < BYTE_TOKENIZER.vocabSize) throw new Error(`vocabSize must be at least ${BYTE_TOKENIZER.vocabSize} for the byte tokenizer`);
    const optim = OptimConfig.parse(c.optim ?? {});
    const weights = initParams(model, c.seed);
    const params: Params = new Map();
    const m: Params = new Map();
    const v: Params = new Map();
    for (const s of paramSpecs(model)) {
      params.set(s.name, f32(weights.get(s.name)!, s.shape));
      m.set(s.name, f32(new Float32Array(weights.get(s.name)!.length), s.shape));
      v.set(s.name, f32(new Float32Array(weights.get(s.name)!.length), s.shape));
    }
    return new Policy(model, optim, new Tokenizer(), params, { m, v }, 0, opts);
  }

  static fromState(s: CheckpointState, opts: PolicyOptions = {}): Policy {
    const params: Params = new Map();
    const m: Params = new Map();
    const v: Params = new Map();
    for (const sp of paramSpecs(s.model)) {
      const get = (k: string) => {
        const t = s.tensors.get(k);
        if (!t) throw new Error(`checkpoint lacks tensor ${k}`);
        return f32(t.data, sp.shape);
      };
      params.set(sp.name, get(sp.name));
      m.set(sp.name, get(`m.${sp.name}`));
      v.set(sp.name, get(`v.${sp.name}`));
    }
    return new Policy(s.model, s.optim, new Tokenizer(s.tokenizer), params, { m, v }, s.step, opts);
  }

  /** Load a checkpoint file, or the latest version in a policy directory. */
  static async load(fileOrDir: string, opts: PolicyOptions = {}): Promise<{ policy: Policy; sha256: string; path: string }> {
    let file = fileOrDir;
    const st = await fs.stat(fileOrDir).catch(() => undefined);
    if (!st) throw new Error(`no policy checkpoint at ${fileOrDir}`);
    if (st.isDirectory()) {
      const versions = await listVersions(fileOrDir);
      if (!versions.length) throw new Error(`no versions saved in ${fileOrDir}`);
      file = versionFile(fileOrDir, versions.at(-1)!);
    }
    const { state, sha256 } = await readCheckpoint(file);
    return { policy: Policy.fromState(state, opts), sha256, path: file };
  }

  /** Everything a checkpoint holds (tensors are copied out of onnxruntime's buffers). */
  state(): CheckpointState {
    const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
    const put = (k: string, t: ort.Tensor) => tensors.set(k, { shape: [...t.dims], data: t.data as Float32Array });
    for (const s of paramSpecs(this.model)) put(s.name, this.params.get(s.name)!);
    for (const s of paramSpecs(this.model)) put(`m.${s.name}`, this.moments.m.get(s.name)!);
    for (const s of paramSpecs(this.model)) put(`v.${s.name}`, this.moments.v.get(s.name)!);
    return { model: this.model, optim: this.optim, tokenizer: this.tokenizer.spec, step: this.step, tensors };
  }

  save(file: string) {
    return writeCheckpoint(file, this.state());
  }

  /** Save as the next version in a policy directory. */
  async saveVersion(dir: string) {
    const versions = await listVersions(dir);
    const version = (versions.at(-1) ?? 0) + 1;
    return { version, ...(await writeCheckpoint(versionFile(dir, version), this.state())) };
  }

  get maxSeqLen(): number {
    return this.model.maxSeqLen;
  }
  get eosIds(): number[] {
    return [this.tokenizer.spec.eos];
  }
  /** A prompt with a leading BOS, as the byte model is trained. */
  encodePrompt(text: string): number[] {
    return this.tokenizer.encode(text, { bos: true });
  }
  decode(ids: number[]): string {
    return this.tokenizer.decode(ids);
  }
  /** The byte model's line break is the byte 0x0A. */
  newlineIds(): number[] {
    return this.tokenizer.encode('\n');
  }

  /** Plain float32 weights (e.g. for export or inspection). */
  weights(): Map<string, Float32Array> {
    return new Map([...this.params].map(([k, t]) => [k, t.data as Float32Array]));
  }

  /** A frozen reference to the current weights (tensors are replaced, never mutated, by steps). */
  snapshot(): Params {
    return new Map(this.params);
  }

  /** Write the inference model (weights baked in) as a standalone .onnx file. */
  async exportOnnx(file: string, o: { withPast?: boolean } = {}): Promise<{ path: string; bytes: number }> {
    const g = buildInferenceGraph({ model: this.model, withPast: o.withPast ?? false, weights: this.weights(), allLogits: true });
    const bytes = g.toBytes();
    await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await fs.writeFile(file, bytes);
    return { path: file, bytes: bytes.length };
  }

  private session(key: string, build: () => Uint8Array, threads = this.opts.threads): Promise<LoadedSession> {
    return this.cache.get(key, build, { providers: this.opts.providers, threads });
  }

  private paramFeeds(params: Params = this.params): Record<string, ort.Tensor> {
    return Object.fromEntries(params);
  }

  /** Batched sampling; string prompts are encoded with a leading BOS. */
  async sample(prompts: (string | number[])[], o: Omit<SampleOptionsInput, 'stop'> & { stop?: (string | number[])[] } = {}): Promise<SampledCompletion[]> {
    const ids = prompts.map((p) => (typeof p === 'string' ? this.tokenizer.encode(p, { bos: true }) : p));
    const stop = (o.stop ?? []).map((s) => (typeof s === 'string' ? this.tokenizer.encode(s) : s));
    const [prefill, decode] = await Promise.all([
      this.session('prefill', () => buildInferenceGraph({ model: this.model, withPast: false }).toBytes()),
      this.session('decode', () => buildInferenceGraph({ model: this.model, withPast: true }).toBytes(), this.opts.decodeThreads ?? 1),
    ]);
    const out = await generate(
      { prefill: prefill.session, decode: decode.session, params: this.paramFeeds(), model: this.model, pad: this.tokenizer.spec.pad },
      ids,
      { eos: this.tokenizer.spec.eos, ...o, stop },
    );
    return out.map((c) => ({ ...c, text: this.tokenizer.decode(c.tokens) }));
  }

  /**
   * Token logprobs, entropies and values of sequences under these (or given, e.g. reference)
   * weights, at `temperature` (default 1). Entry i is about predicting token i; entry 0 is 0.
   */
  async score(sequences: number[][], o: { params?: Params; temperature?: number } = {}) {
    const B = sequences.length;
    const T = this.seqLenFor(Math.max(...sequences.map((s) => s.length)));
    const temp = o.temperature ?? 1;
    if (!(temp > 0)) throw new Error(`score needs a temperature above 0, got ${temp} (greedy decoding has no distribution to score)`);
    const { session } = await this.session(`score:${B}:${T}:${temp}`, () => buildScoreGraph(this.model, B, T, temp).toBytes());
    const seqs = sequences.map((tokens) => ({ tokens, lossMask: tokens.map(() => 1) }));
    const feeds = packBatch(seqs, { rows: B, seqLen: T, pad: this.tokenizer.spec.pad, aggregation: 'token', stepTokens: 1, stepSequences: 1 });
    const res = await session.run(pick(session, { ...this.paramFeeds(o.params), ...feeds }));
    const lp = res.token_logprobs!.data as Float32Array;
    const ent = res.entropy!.data as Float32Array;
    const val = res.values!.data as Float32Array;
    return sequences.map((s, b) => {
      const at = (a: Float32Array) => [0, ...Array.from(a.subarray(b * T, b * T + s.length - 1))];
      return { logprobs: at(lp), entropy: at(ent), values: at(val) };
    });
  }

  private seqLenFor(maxTokens: number): number {
    if (maxTokens - 1 > this.model.maxSeqLen) throw new Error(`sequence of ${maxTokens} tokens exceeds maxSeqLen ${this.model.maxSeqLen}`);
    return Math.min(paddedLength(maxTokens), this.model.maxSeqLen);
  }

  /**
   * One optimizer step over `sequences`: each micro-batch runs forward + loss + backward in
   * one session run (adding into gradient accumulators), the last one also clips the global
   * grad norm and applies AdamW with the scheduled learning rate. The loss is normalised
   * over the whole step, so accumulation equals one big batch. A step whose loss, gradient
   * norm or updated weights are not finite is skipped (`skipped: true`, nothing changes).
   */
  async trainStep(sequences: z.input<typeof TrainSequence>[], lossInput: LossConfigInput, o: { microBatchSize?: number } = {}): Promise<StepReport> {
    const t0 = performance.now();
    const plan = planStep(sequences, lossInput, o, (n) => this.seqLenFor(n));
    const r = await runStep(plan, {
      pad: this.tokenizer.spec.pad,
      optim: this.optim,
      trainable: paramSpecs(this.model).map((s) => s.name),
      feeds: this.paramFeeds(),
      moments: this.moments,
      step: this.step,
      session: async (learner) => {
        const s: TrainGraphSpec = { model: this.model, ...learner };
        return (await this.session(JSON.stringify(s), () => buildTrainGraph(s).toBytes())).session;
      },
    });
    if (!r.skipped) {
      this.params = r.params;
      this.moments = { m: r.m, v: r.v };
      this.step += 1;
    }
    return {
      ...r.sums,
      step: this.step,
      skipped: r.skipped,
      gradNorm: r.gradNorm,
      lr: r.lr,
      tokens: plan.stepTokens,
      sequences: plan.seqs.length,
      microBatches: plan.K,
      provider: this.provider,
      seconds: (performance.now() - t0) / 1000,
    };
  }

  async release(): Promise<void> {
    await this.cache.release();
  }
}
