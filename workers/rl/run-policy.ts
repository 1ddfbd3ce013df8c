import { and, eq, notInArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { tasks } from '@/db/schema';
import { HF_TASK_KINDS } from '@/core/tasks';
import type { RunConfig } from '@/core/run-config';
import type { RlSettings } from '@/core/settings';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import { Policy } from '@/lib/policy/policy';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { HfRlPolicy, type HfTraining } from '@/lib/policy/hf/hf-rl-policy';
import type { RunStartNote } from './agent-run-start';
import { agentRenderer } from './agent-renderer';
import { runBaseModel, type CheckpointSource } from './policy-store';

/**
 * A run's policy version 0, as its config's `policy` says: the byte model from scratch
 * (with the SFT optimizer; rl.advance warm-starts it and then switches to the run's learning
 * rate), or a registered Hugging Face model as published, with a fresh LoRA adapter or all
 * its weights to train at the run's learning rate (no warm start: it is pretrained). A
 * registered model runs text and repository tasks (HF_TASK_KINDS); an I/O suite is refused.
 */
export async function createRunPolicy(
  db: Db,
  run: { id: string; suiteId: string | null; config: RunConfig },
  start: { model?: { maxSeqLen: number } },
  s: Pick<RlSettings, 'sftLearningRate' | 'sftSteps'>,
  from: CheckpointSource,
): Promise<{ policy: RlPolicy; notes: RunStartNote[] }> {
  const c = run.config;
  const choice = c.policy;
  if (choice.kind === 'byte') {
    const policy = Policy.create({
      seed: c.seed,
      model: start.model,
      optim: { lr: s.sftLearningRate, warmupSteps: Math.min(10, s.sftSteps), totalSteps: Math.max(1, s.sftSteps) },
    });
    return { policy, notes: [] };
  }
  // I/O tasks' prompts and stop strings are written for the byte tokenizer; text and repository tasks are not
  const [other] = await db
    .select({ externalId: tasks.externalId, kind: tasks.kind })
    .from(tasks)
    .where(and(eq(tasks.suiteId, run.suiteId!), notInArray(tasks.kind, [...HF_TASK_KINDS])))
    .limit(1);
  if (other)
    throw new PermanentJobError(
      `run ${run.id} trains the registered model "${choice.model}", which runs text and repository tasks, but its suite holds ${other.kind} tasks (e.g. ${other.externalId}); use a text suite such as "stories", a repository suite, or the built-in byte model`,
    );
  const { dir, base } = await runBaseModel(run, from);
  // PPO's critic: a value head on the model, trained with it (HfTrainer `valueHead`)
  const valueHead = c.algorithm === 'ppo';
  const training: HfTraining = choice.training === 'lora' ? { training: 'lora', lora: choice.lora, valueHead } : { training: 'full', valueHead };
  const policy = await HfRlPolicy.create(
    dir,
    {
      training,
      // a control arm (learning rate 0) never steps; its optimizer only has to be valid
      optim: { lr: c.learningRate > 0 ? c.learningRate : 1e-4, warmupSteps: 0, totalSteps: Math.max(1, c.iterations), minLrRatio: 1 },
      seed: c.seed,
      base,
    },
    { precision: choice.precision },
  );
  // a repository suite: the model holds agent conversations in its own chat template (refused for good without one)
  const agents = start.model !== undefined;
  if (agents) {
    try {
      agentRenderer(policy, { model: `model "${choice.model}"` });
    } catch (e) {
      await policy.release();
      throw e;
    }
  }
  const how =
    choice.training === 'lora'
      ? `a LoRA adapter (rank ${choice.lora.rank}, alpha ${choice.lora.alpha}, on ${choice.lora.targetModules.join(', ')})`
      : 'every weight (full fine-tuning)';
  const trainable = [...policy.trainer.trainable().values()].reduce((n, t) => n + t.size, 0);
  const precision =
    choice.precision === 'fp32'
      ? ''
      : `; ${choice.precision} mixed precision (float32 master weights; half kernels on CUDA, the rounding emulated on the CPU provider)${choice.precision === 'fp16' ? ' with dynamic loss scaling' : ''}`;
  return {
    policy,
    notes: [
      {
        type: 'policy',
        message: `policy: registered model "${choice.model}" (${policy.sampler.model.parameters.toLocaleString('en-US')} parameters, context ${policy.maxSeqLen} tokens), training ${how}: ${trainable.toLocaleString('en-US')} trainable parameters; no SFT warm start (the model is pretrained)${precision}${valueHead ? '; PPO: a value head (zeros) trained with it' : ''}${
          agents ? `; agent conversations in its own chat template, each episode at most ${Math.min(start.model!.maxSeqLen, policy.maxSeqLen)} tokens` : ''
        }`,
        data: {
          model: choice.model,
          base,
          training: choice.training,
          precision: choice.precision,
          lora: choice.training === 'lora' ? choice.lora : null,
          trainable,
        },
      },
    ],
  };
}
