import type { z } from 'zod';
import type { TrainSequence } from './batch';
import type { LossConfigInput } from './losses';
import type { Provider } from './onnx-session';
import type { OptimConfig } from './optim';
import type { SampledCompletion, StepReport } from './policy';

/**
 * What the RL loop needs of a policy, whichever model it is (issue 15: one policy
 * interface): the built-in byte `Policy` and a Hugging Face model's `HfRlPolicy` both
 * implement it. Text tasks and the learner go through this; I/O and repository tasks still
 * need the byte model (its stop strings and agent prompt are written for its tokenizer).
 */
export interface RlPolicy {
  readonly kind: 'byte' | 'hf';
  /** the execution provider the latest session ran on */
  readonly provider: Provider;
  /** longest sequence (prompt and continuation) the policy takes */
  readonly maxSeqLen: number;
  /** the tokens that end a generation (a model may have several, e.g. `<|eot_id|>` and `<|end_of_text|>`) */
  readonly eosIds: readonly number[];
  readonly optim: OptimConfig;
  /** optimizer steps taken */
  readonly step: number;
  /** the weights, to pass as `score`'s `params` (a reference policy's) */
  readonly params: unknown;
  /** a prompt as the model expects one (with its BOS where it has one) */
  encodePrompt(text: string): number[];
  decode(ids: number[]): string;
  /** token ids that contain a line break: a text task's continuation ends at the first */
  newlineIds(): number[];
  sample(prompts: number[][], o: { maxNewTokens: number; temperature: number; topP?: number; seed?: number; stop?: number[][] }): Promise<SampledCompletion[]>;
  score(sequences: number[][], o?: { params?: unknown; temperature?: number }): Promise<{ logprobs: number[]; entropy: number[]; values?: number[] }[]>;
  trainStep(sequences: z.input<typeof TrainSequence>[], loss: LossConfigInput, o?: { microBatchSize?: number }): Promise<StepReport>;
  /** write a checkpoint file (what a policy version's sha256 names) */
  save(file: string): Promise<{ sha256: string; bytes: number }>;
  release(): Promise<void>;
}
