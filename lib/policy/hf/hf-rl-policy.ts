import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { TrainSequence } from '../batch';
import type { LossConfigInput } from '../losses';
import type { OptimConfig, OptimConfigInput } from '../optim';
import type { PolicyOptions, SampledCompletion, StepReport } from '../policy';
import type { RlPolicy } from '../rl-policy';
import { f32, type ort } from '../onnx-session';
import { HfPolicy } from './hf-policy';
import { HfTrainer } from './hf-trainer';
import { LossScaleState } from '../loss-scaler';
import { LoraConfig } from './lora';
import { readHeader, readTensorF32 } from './safetensors';
import { writeSafetensorsFile } from './safetensors-writer';
import { hfParamSpecs } from './weights';

const FORMAT = 'crucible-hf-rl-1';

/** How a run trains a Hugging Face model: every weight, or a LoRA adapter; with a value head for PPO. */
export const HfTraining = z.discriminatedUnion('training', [
  z.object({ training: z.literal('full'), valueHead: z.boolean().default(false) }),
  z.object({ training: z.literal('lora'), lora: LoraConfig, valueHead: z.boolean().default(false) }),
]);
export type HfTraining = z.input<typeof HfTraining>;

const Meta = z.object({
  format: z.literal(FORMAT),
  base: z.string(),
  training: z.string(),
  optim: z.string(),
  step: z.string(),
  /** fp16 training's loss-scaling state (loss-scaler.ts), so a resumed run does not start over at 2^16 */
  loss_scale: z.string().optional(),
});

/**
 * A Hugging Face model as the RL loop's policy (`RlPolicy`): an `HfPolicy` samples and an
 * `HfTrainer` scores and trains, over one copy of the checkpoint weights (the trainer is
 * built on the sampler's tensors). Before sampling, the sampler takes the trainer's current
 * weights: under full fine-tuning its trained tensors (fed as they are), under LoRA its
 * adapter merged once per step.
 *
 * A checkpoint holds only what training changed: the trainable tensors (all weights, or the
 * LoRA factors) with their AdamW moments, the step, the optimizer and training config, and
 * `base`, the registered model's weights hash it applies to. It is a safetensors file with
 * that in its metadata; the base model comes from the models registry.
 */
export class HfRlPolicy implements RlPolicy {
  readonly kind = 'hf' as const;
  private newlines: number[] | undefined;

  private constructor(
    readonly sampler: HfPolicy,
    readonly trainer: HfTrainer,
    readonly training: HfTraining,
    /** the base model's identity (the registered model's weights sha256) */
    readonly base: string,
  ) {}

  /** A fresh policy: the base model, a new adapter (LoRA) or all its weights (full) to train. */
  static async create(
    modelDir: string,
    o: { training: HfTraining; optim: OptimConfigInput; seed: number; base: string },
    opts: PolicyOptions = {},
  ): Promise<HfRlPolicy> {
    const sampler = await HfPolicy.load(modelDir, opts);
    const trainer = HfTrainer.fromModel(
      sampler.model,
      { lora: o.training.training === 'lora' ? o.training.lora : undefined, optim: o.optim, seed: o.seed, valueHead: o.training.valueHead ?? false },
      opts,
      sampler.params,
    );
    // normalised (defaults filled), so a checkpoint's bytes do not depend on how the caller spelled it
    return new HfRlPolicy(sampler, trainer, HfTraining.parse(o.training), o.base);
  }

  /** A policy saved by `save`, on its base model (refused if the checkpoint is for another base). */
  static async load(modelDir: string, file: string, o: { base: string }, opts: PolicyOptions = {}): Promise<HfRlPolicy> {
    const h = await readHeader(file);
    const meta = Meta.safeParse(h.metadata);
    if (!meta.success) throw new Error(`${file} is not a Crucible Hugging Face policy checkpoint (its metadata lacks format ${FORMAT})`);
    if (meta.data.base !== o.base)
      throw new Error(
        `${file} was trained on base model ${meta.data.base.slice(0, 12)}, not ${o.base.slice(0, 12)}: the registered model changed since the run started`,
      );
    const training = HfTraining.parse(JSON.parse(meta.data.training));
    const policy = await HfRlPolicy.create(modelDir, { training, optim: JSON.parse(meta.data.optim) as OptimConfigInput, seed: 0, base: o.base }, opts);
    const read = async (prefix: string) => {
      const out = new Map<string, Float32Array>();
      for (const n of policy.trainer.trainable().keys()) out.set(n, await readTensorF32(h, `${prefix}${n}`));
      return out;
    };
    policy.trainer.restore({ trainable: await read('w.'), m: await read('m.'), v: await read('v.'), step: Number(meta.data.step) });
    if (meta.data.loss_scale) policy.trainer.lossScaling = LossScaleState.parse(JSON.parse(meta.data.loss_scale));
    return policy;
  }

  /** both sessions are created with the same providers, so the sampler's is the one that loaded */
  get provider() {
    return this.sampler.provider;
  }
  get maxSeqLen() {
    return this.sampler.config.maxPositionEmbeddings;
  }
  get eosIds(): number[] {
    const ids = this.sampler.model.eosTokenIds;
    return ids.length ? ids : [this.sampler.tokenizer.eos ?? 0];
  }
  get optim(): OptimConfig {
    return this.trainer.optim;
  }
  get step() {
    return this.trainer.step;
  }
  get params() {
    return this.trainer.params;
  }

  encodePrompt(text: string): number[] {
    return this.sampler.tokenizer.encode(text);
  }
  decode(ids: number[]): string {
    return this.sampler.tokenizer.decode(ids);
  }

  /** Every vocabulary entry whose text holds a line break (decoded one by one, once). */
  newlineIds(): number[] {
    if (!this.newlines) {
      const out: number[] = [];
      for (let id = 0; id < this.sampler.config.vocabSize; id++) if (this.sampler.tokenizer.decode([id], { skipSpecial: true }).includes('\n')) out.push(id);
      this.newlines = out;
    }
    return this.newlines;
  }

  /**
   * Weight feeds of another version of this policy (the reference, v0) for `score`'s
   * `params`: this model's base tensors (shared, never trained: the sampler's) with the
   * version's trained tensors read from its checkpoint. Its AdamW moments are not read, and
   * no second model or sessions are built.
   */
  async versionParams(file: string): Promise<Record<string, ort.Tensor>> {
    const h = await readHeader(file);
    const meta = Meta.safeParse(h.metadata);
    if (!meta.success || meta.data.base !== this.base) throw new Error(`${file} is not a checkpoint of this policy's base model`);
    const out: Record<string, ort.Tensor> = { ...this.sampler.params };
    for (const [n, t] of this.trainer.trainable()) out[n] = f32(await readTensorF32(h, `w.${n}`), [...t.dims]);
    return out;
  }

  /** The trainer's current weights into the sampler (once per optimizer step). */
  private sync() {
    if (this.training.training === 'lora') this.sampler.setAdapter(this.trainer.adapter(), { version: this.trainer.step });
    else if (this.sampler.adapter?.version !== this.trainer.step) {
      // the value head is the trainer's, not a weight the sampler feeds
      const weights = new Set(hfParamSpecs(this.sampler.config).map((s) => s.name));
      this.sampler.useWeights(Object.fromEntries([...this.trainer.trainable()].filter(([n]) => weights.has(n))), { version: this.trainer.step });
    }
  }

  /** The sampler with this policy's current weights (an adapter or full weights): for serving it outside the RL loop. */
  samplerWithWeights(): HfPolicy {
    this.sync();
    return this.sampler;
  }

  async sample(
    prompts: number[][],
    o: { maxNewTokens: number; temperature: number; topP?: number; seed?: number; stop?: number[][] },
  ): Promise<SampledCompletion[]> {
    this.sync();
    return this.sampler.sample(prompts, o);
  }

  score(sequences: number[][], o: { params?: unknown; temperature?: number } = {}) {
    return this.trainer.score(sequences, { temperature: o.temperature, params: o.params as Record<string, never> | undefined });
  }

  trainStep(sequences: z.input<typeof TrainSequence>[], loss: LossConfigInput, o: { microBatchSize?: number } = {}): Promise<StepReport> {
    return this.trainer.trainStep(sequences, loss, o);
  }

  /** Write the checkpoint (deterministic bytes: the same state gives the same sha256). */
  async save(file: string): Promise<{ sha256: string; bytes: number }> {
    const { m, v } = this.trainer.optimizerState();
    const tensors = [...this.trainer.trainable()].flatMap(([n, t]) =>
      (
        [
          ['w.', t.data as Float32Array],
          ['m.', m.get(n)!],
          ['v.', v.get(n)!],
        ] as const
      ).map(([p, data]) => ({ name: `${p}${n}`, shape: [...t.dims], dtype: 'F32' as const, data })),
    );
    await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeSafetensorsFile(file, tensors, {
      format: FORMAT,
      base: this.base,
      training: JSON.stringify(this.training),
      optim: JSON.stringify(this.trainer.optim),
      step: String(this.trainer.step),
      ...(this.trainer.precision === 'fp16' ? { loss_scale: JSON.stringify(this.trainer.lossScaling) } : {}),
    });
    const buf = await fs.readFile(file);
    return { sha256: createHash('sha256').update(buf).digest('hex'), bytes: buf.length };
  }

  async release(): Promise<void> {
    await this.sampler.release();
    await this.trainer.release();
  }
}
