import { z } from 'zod';
import { packBatch, paddedLength, type TrainSequence } from '../batch';
import type { LearnerSpec } from '../learner-graph';
import { METRICS, type LossConfigInput, type MetricName } from '../losses';
import { f32, type LoadedSession, type Provider, type ort } from '../onnx-session';
import { OptimConfig, type OptimConfigInput } from '../optim';
import type { PolicyOptions, StepReport } from '../policy';
import { SessionCache } from '../session-cache';
import { initialLossScale, nextLossScale, type LossScaleState } from '../loss-scaler';
import { matmulMode, matmulModeName, type Precision } from '../onnx/mixed-precision';
import { learnerSpec, pick, planStep, runStep, type Params } from '../train-step';
import type { HfModelConfig } from './config';
import { mergeLora, writePeftAdapter, type LoraTensor } from './export-peft';
import { initLora, loraSpecs, LoraConfig } from './lora';
import { adapterConfigOf, readPeftAdapter, type LoraAdapter } from './lora-adapter';
import type { SafetensorsDType } from './safetensors';
import { loadHfModelDir, type HfModelDir } from './model-dir';
import { buildHfScoreGraph, buildHfTrainGraph, hfTrainableNames, valueHeadSpecs, type HfTrainGraphSpec } from './train-graph';
import { hfParamSpecs } from './weights';

/**
 * Training and scoring sessions a trainer keeps (SessionCache's LRU bound): a step uses two
 * (accumulate and apply) and scoring one per shape, so a few steps' worth.
 */
export const TRAINER_SESSIONS = 6;

/**
 * The padding multiple for a batch whose longest sequence has `maxTokens` tokens: 16 up to 512
 * (short turns, as before), then an eighth of the power of two below it (64 at 512–1023, 128
 * at 1024–2047, …). Each padded length is its own graph and session; agent episodes of every
 * length between 700 and 2,000 tokens would otherwise be ~80 shapes, at most 12.5% padding now.
 */
export function paddingMultiple(maxTokens: number): number {
  if (maxTokens <= 512) return 16;
  return 2 ** Math.floor(Math.log2(maxTokens)) / 8;
}

export const HfTrainOptions = z.object({
  /** LoRA on these modules; absent means full fine-tuning of every checkpoint weight. */
  lora: LoraConfig.optional(),
  optim: z.custom<OptimConfigInput>().optional(),
  /** Seeds the LoRA A initialisation. */
  seed: z.number().int().default(0),
  /** A value head for PPO (train-graph.ts `valueHeadSpecs`), created as zeros and trained with the rest. */
  valueHead: z.boolean().default(false),
});
export type HfTrainOptions = z.input<typeof HfTrainOptions>;

/**
 * The learner for a Hugging Face decoder, with the byte Policy's learner surface
 * (`trainStep`, `score`, `provider`, `release`), so the RL loop can drive either. Checkpoint
 * weights are onnxruntime tensors fed to every session (one copy; pass an HfPolicy's
 * `params` to share its). Full fine-tuning replaces them after each step and keeps AdamW
 * moments for each; LoRA leaves them untouched and trains only the adapter factors (PEFT
 * names), with moments only for those.
 */
export class HfTrainer {
  // a session per batch shape (and mode): bounded, see SessionCache
  private readonly cache = new SessionCache({ maxSessions: TRAINER_SESSIONS });
  /** Dynamic loss scaling, used only when training in fp16 (loss-scaler.ts). */
  lossScaling: LossScaleState = initialLossScale();

  private constructor(
    readonly model: HfModelDir,
    readonly lora: LoraConfig | undefined,
    readonly valueHead: boolean,
    readonly optim: OptimConfig,
    /** Checkpoint weights by HF name (trained in place of the originals under full fine-tuning). */
    private base: Record<string, ort.Tensor>,
    /** What the trainer adds to the checkpoint: LoRA factors by PEFT name, and the value head (empty under full fine-tuning without one). */
    private factors: Params,
    private moments: { m: Params; v: Params },
    public step: number,
    private readonly opts: PolicyOptions,
  ) {}

  static async load(dir: string, options: HfTrainOptions = {}, opts: PolicyOptions = {}): Promise<HfTrainer> {
    return HfTrainer.fromModel(await loadHfModelDir(dir), options, opts);
  }

  /** Train a loaded model; `params` are existing tensors of its weights to share (e.g. an HfPolicy's). */
  static fromModel(model: HfModelDir, options: HfTrainOptions = {}, opts: PolicyOptions = {}, params?: Record<string, ort.Tensor>): HfTrainer {
    const o = HfTrainOptions.parse(options);
    const c = model.config;
    const base: Record<string, ort.Tensor> = {};
    for (const s of hfParamSpecs(c)) base[s.name] = params?.[s.name] ?? f32(model.weights.get(s.name)!, s.shape);
    const adapter: Params = new Map();
    if (o.lora) {
      const init = initLora(c, o.lora, o.seed);
      for (const s of loraSpecs(c, o.lora)) adapter.set(s.name, f32(init.get(s.name)!, s.shape));
    }
    if (o.valueHead) for (const s of valueHeadSpecs(c)) adapter.set(s.name, f32(new Float32Array(s.shape.reduce((a, d) => a * d, 1)), s.shape));
    const trainer = new HfTrainer(model, o.lora, o.valueHead, OptimConfig.parse(o.optim ?? {}), base, adapter, { m: new Map(), v: new Map() }, 0, opts);
    for (const [n, t] of trainer.trainable()) {
      trainer.moments.m.set(n, f32(new Float32Array(t.size), [...t.dims]));
      trainer.moments.v.set(n, f32(new Float32Array(t.size), [...t.dims]));
    }
    return trainer;
  }

  get config(): HfModelConfig {
    return this.model.config;
  }

  /** the execution provider the latest session ran on */
  get provider() {
    return this.cache.provider;
  }

  get precision(): Precision {
    return this.opts.precision ?? 'fp32';
  }

  /** What the latest session's matrix products ran in on its provider (`fp32`, `fp16`, `bf16`, `bf16-emulated`). */
  get matmuls(): string {
    return matmulModeName(matmulMode(this.precision, this.provider));
  }

  /** float16 gradients need the loss scaled (bfloat16 has float32's range and does not). */
  private get scalesLoss(): boolean {
    return this.precision === 'fp16';
  }

  /** The loss-scale feed for training sessions (none unless fp16). */
  private scaleFeed(): Record<string, ort.Tensor> {
    return this.scalesLoss ? { loss_scale: f32([this.lossScaling.scale], []) } : {};
  }

  /** Every weight feed: checkpoint weights, plus the LoRA factors. */
  get params(): Record<string, ort.Tensor> {
    return { ...this.base, ...Object.fromEntries(this.factors) };
  }

  /** The tensors the optimizer updates, by name, in graph order. */
  trainable(): Params {
    const all = this.params;
    return new Map(hfTrainableNames(this.config, this.lora, this.valueHead).map((n) => [n, all[n]!]));
  }

  /** Replace trainable tensors (e.g. the LoRA factors a test or checkpoint supplies); shapes must match. */
  setTrainable(values: Map<string, Float32Array>): void {
    const current = this.trainable();
    for (const [n, data] of values) {
      const t = current.get(n);
      if (!t) throw new Error(`${n} is not a trainable tensor of this trainer (${this.lora ? 'LoRA: PEFT names' : 'full: checkpoint names'})`);
      if (t.size !== data.length) throw new Error(`${n}: ${data.length} values for shape [${t.dims.join(', ')}]`);
      if (this.factors.has(n)) this.factors.set(n, f32(data, [...t.dims]));
      else this.base[n] = f32(data, [...t.dims]);
    }
  }

  /** The trainable tensors' float32 data (checkpoint or PEFT names; not copies). */
  trainableWeights(): Map<string, Float32Array> {
    return new Map([...this.trainable()].map(([n, t]) => [n, t.data as Float32Array]));
  }

  /** AdamW moments of the trainable tensors (their data, not copies), for a checkpoint. */
  optimizerState(): { m: Map<string, Float32Array>; v: Map<string, Float32Array> } {
    const data = (p: Params) => new Map([...p].map(([n, t]) => [n, t.data as Float32Array]));
    return { m: data(this.moments.m), v: data(this.moments.v) };
  }

  /**
   * Resume from a checkpoint: the trainable tensors, their AdamW moments and the step count
   * (every trainable tensor needs all three; shapes must match).
   */
  restore(state: { trainable: Map<string, Float32Array>; m: Map<string, Float32Array>; v: Map<string, Float32Array>; step: number }): void {
    const current = this.trainable();
    for (const n of current.keys())
      if (!state.trainable.has(n) || !state.m.has(n) || !state.v.has(n)) throw new Error(`the checkpoint lacks ${n} (or its optimizer moments)`);
    this.setTrainable(state.trainable);
    for (const [n, t] of current) {
      const dims = [...t.dims];
      for (const [k, into] of [
        ['m', this.moments.m],
        ['v', this.moments.v],
      ] as const) {
        const d = state[k].get(n)!;
        if (d.length !== t.size) throw new Error(`${k}.${n}: ${d.length} values for shape [${dims.join(', ')}]`);
        into.set(n, f32(d, dims));
      }
    }
    this.step = state.step;
  }

  private requireLora(what: string): LoraConfig {
    if (!this.lora) throw new Error(`${what} needs a LoRA trainer; this one fine-tunes every weight (export its weights with exportWeights)`);
    return this.lora;
  }

  /**
   * The LoRA factors with their PEFT config, for `HfPolicy.setAdapter`, `writePeftAdapter`
   * or `mergeLora` (the tensors' data are the trainer's, not copies).
   */
  adapter(baseModelNameOrPath = this.model.dir): LoraAdapter {
    const lora = this.requireLora('adapter()');
    const tensors = new Map<string, LoraTensor>();
    for (const s of loraSpecs(this.config, lora)) tensors.set(s.name, { shape: s.shape, data: this.factors.get(s.name)!.data as Float32Array });
    return { config: adapterConfigOf(lora, baseModelNameOrPath), tensors };
  }

  /** Write the adapter as PEFT does (`adapter_config.json`, `adapter_model.safetensors`) into an empty directory. */
  async saveAdapter(out: string, o: { baseModelNameOrPath?: string; dtype?: SafetensorsDType } = {}) {
    const a = this.adapter(o.baseModelNameOrPath);
    return writePeftAdapter(out, { ...a, base: this.config, dtype: o.dtype });
  }

  /**
   * Replace the factors with a PEFT adapter's (a directory or its adapter_model.safetensors,
   * or one already read). Its r, lora_alpha and target_modules must be this trainer's and it
   * must hold every factor. PEFT adapters carry no optimizer state, so AdamW moments and the
   * step count start again from zero.
   */
  async loadAdapter(from: string | LoraAdapter): Promise<void> {
    const lora = this.requireLora('loadAdapter');
    const a = typeof from === 'string' ? await readPeftAdapter(from, this.config) : from;
    const where = typeof from === 'string' ? `${from}: ` : '';
    const same = (x: readonly string[], y: readonly string[]) => [...x].sort().join() === [...y].sort().join();
    if (a.config.r !== lora.rank || a.config.loraAlpha !== lora.alpha || !same(a.config.targetModules, lora.targetModules))
      throw new Error(
        `${where}the adapter has r=${a.config.r}, lora_alpha=${a.config.loraAlpha}, target_modules=${a.config.targetModules.join(',')} but this trainer has ` +
          `rank=${lora.rank}, alpha=${lora.alpha}, targetModules=${lora.targetModules.join(',')}: create the trainer with the adapter's settings (loraConfigOf)`,
      );
    const specs = loraSpecs(this.config, lora);
    const missing = specs.filter((s) => !a.tensors.has(s.name));
    if (missing.length) throw new Error(`${where}the adapter lacks ${missing.length} factor(s), e.g. ${missing[0]!.name}`);
    this.setTrainable(new Map(specs.map((s) => [s.name, Float32Array.from(a.tensors.get(s.name)!.data)])));
    for (const [n, t] of this.trainable()) {
      this.moments.m.set(n, f32(new Float32Array(t.size), [...t.dims]));
      this.moments.v.set(n, f32(new Float32Array(t.size), [...t.dims]));
    }
    this.step = 0;
  }

  /**
   * The weights a Hugging Face export writes, by checkpoint name: under LoRA the base with
   * the adapter merged in (W + B·A·alpha/r), under full fine-tuning the trained weights.
   */
  exportWeights(): Map<string, Float32Array> {
    const base = new Map(Object.entries(this.base).map(([n, t]) => [n, t.data as Float32Array]));
    if (!this.lora) return base;
    const a = this.adapter();
    return mergeLora(base, a.config, a.tensors, this.config);
  }

  /** A session whose graph is built for the trainer's precision on the provider it loads on. */
  private session(key: string, build: (provider: Provider) => Uint8Array): Promise<LoadedSession> {
    return this.cache.get(`${key}:${this.precision}`, build, { providers: this.opts.providers, threads: this.opts.threads });
  }

  private seqLenFor(maxTokens: number): number {
    const max = this.config.maxPositionEmbeddings;
    if (maxTokens - 1 > max) throw new Error(`sequence of ${maxTokens} tokens exceeds max_position_embeddings ${max}`);
    return Math.min(paddedLength(maxTokens, paddingMultiple(maxTokens)), max);
  }

  private get pad(): number {
    return this.model.tokenizer.pad ?? this.model.eosTokenIds[0] ?? 0;
  }

  private trainSession(learner: LearnerSpec) {
    const s: HfTrainGraphSpec = { config: this.config, lora: this.lora, valueHead: this.valueHead, ...learner, lossScale: this.scalesLoss };
    const build = (provider: Provider) => buildHfTrainGraph({ ...s, matmuls: matmulMode(this.precision, provider) }).toBytes();
    return this.session(`train:${JSON.stringify(learner)}`, build).then((x) => x.session);
  }

  /**
   * Token logprobs and entropies of sequences at `temperature` (default 1); entry i is about
   * predicting token i, entry 0 is 0. `params` overrides weight feeds (a reference policy).
   */
  async score(sequences: number[][], o: { params?: Record<string, ort.Tensor>; temperature?: number } = {}) {
    const B = sequences.length;
    const T = this.seqLenFor(Math.max(...sequences.map((s) => s.length)));
    const temp = o.temperature ?? 1;
    if (!(temp > 0)) throw new Error(`score needs a temperature above 0, got ${temp} (greedy decoding has no distribution to score)`);
    const { session } = await this.session(`score:${B}:${T}:${temp}`, (provider) =>
      buildHfScoreGraph(this.config, B, T, temp, this.lora, this.valueHead, matmulMode(this.precision, provider)).toBytes(),
    );
    const seqs = sequences.map((tokens) => ({ tokens, lossMask: tokens.map(() => 1) }));
    const feeds = packBatch(seqs, { rows: B, seqLen: T, pad: this.pad, aggregation: 'token', stepTokens: 1, stepSequences: 1 });
    const res = await session.run(pick(session, { ...this.params, ...o.params, ...feeds }));
    const lp = res.token_logprobs!.data as Float32Array;
    const ent = res.entropy!.data as Float32Array;
    const val = res.values?.data as Float32Array | undefined;
    return sequences.map((s, b) => {
      const at = (a: Float32Array) => [0, ...Array.from(a.subarray(b * T, b * T + s.length - 1))];
      // values as the byte model's score gives them: entry i is the estimate before token i
      return { logprobs: at(lp), entropy: at(ent), ...(val ? { values: at(val) } : {}) };
    });
  }

  /**
   * The loss's gradients with respect to every trainable tensor over the whole batch (one
   * forward + backward, no update), with the step's metrics: for checks and diagnostics.
   */
  async gradients(sequences: z.input<typeof TrainSequence>[], lossInput: LossConfigInput) {
    const plan = planStep(sequences, lossInput, {}, (n) => this.seqLenFor(n));
    const session = await this.trainSession(learnerSpec(plan, this.optim, 'accumulate', false));
    const feeds = packBatch(plan.seqs, {
      rows: plan.mb,
      seqLen: plan.T,
      pad: this.pad,
      aggregation: plan.aggregation,
      stepTokens: plan.stepTokens,
      stepSequences: plan.stepSequences,
      normTokens: plan.normTokens,
    });
    const res = await session.run(pick(session, { ...this.params, ...this.scaleFeed(), ...feeds }));
    const grads = new Map(hfTrainableNames(this.config, this.lora, this.valueHead).map((n) => [n, res[`new_acc.${n}`]!.data as Float32Array]));
    const metrics = Object.fromEntries(METRICS.map((m) => [m, Number(res[`metric.${m}`]!.data[0])])) as Record<MetricName, number>;
    return { grads, metrics };
  }

  /**
   * One optimizer step (the byte Policy's trainStep: micro-batches accumulate gradients,
   * the last applies global-norm clipping and AdamW; a non-finite step is skipped).
   */
  async trainStep(sequences: z.input<typeof TrainSequence>[], lossInput: LossConfigInput, o: { microBatchSize?: number } = {}): Promise<StepReport> {
    const t0 = performance.now();
    const plan = planStep(sequences, lossInput, o, (n) => this.seqLenFor(n));
    const r = await runStep(plan, {
      pad: this.pad,
      optim: this.optim,
      trainable: hfTrainableNames(this.config, this.lora, this.valueHead),
      feeds: { ...this.params, ...this.scaleFeed() },
      moments: this.moments,
      step: this.step,
      session: (learner) => this.trainSession(learner),
    });
    const lossScale = this.scalesLoss ? this.lossScaling.scale : undefined;
    // an fp16 step that overflowed is skipped like any non-finite step, and the scale backs off
    if (this.scalesLoss) this.lossScaling = nextLossScale(this.lossScaling, !r.skipped);
    if (!r.skipped) {
      for (const [n, t] of r.params) {
        if (this.factors.has(n)) this.factors.set(n, t);
        else this.base[n] = t;
      }
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
      matmuls: this.matmuls,
      ...(lossScale !== undefined ? { lossScale } : {}),
      seconds: (performance.now() - t0) / 1000,
    };
  }

  async release(): Promise<void> {
    await this.cache.release();
  }
}
