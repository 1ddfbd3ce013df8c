import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { tasks } from '@/db/schema';
import type { OptimConfigInput } from '@/lib/policy/optim';
import { OptimConfig } from '@/lib/policy/optim';
import { Policy } from '@/lib/policy/policy';
import { prng } from '@/core/random';

/**
 * Optional SFT warm start on the suite's train demonstrations: the loss covers the body
 * the policy will have to write (the prompt's tokens are observation, mask 0).
 */
export async function sftWarmStart(db: Db, policy: Policy, suiteId: string, steps: number, seed: number, signal?: AbortSignal) {
  const demos = await db
    .select({ prompt: tasks.prompt, demo: tasks.demonstration })
    .from(tasks)
    .where(and(eq(tasks.suiteId, suiteId), eq(tasks.split, 'train'), isNotNull(tasks.demonstration)))
    .orderBy(asc(tasks.externalId));
  const seqs = demos.flatMap((d) => {
    const p = policy.tokenizer.encode(d.prompt, { bos: true });
    const full = [...policy.tokenizer.encode(d.demo!, { bos: true }), policy.tokenizer.spec.eos];
    if (full.length > policy.model.maxSeqLen) return [];
    return [{ tokens: full, lossMask: full.map((_, i) => (i >= p.length ? 1 : 0)) }];
  });
  if (!seqs.length) return { steps: 0, loss: null as number | null };
  const rand = prng(seed);
  let loss: number | null = null;
  const batch = Math.min(16, seqs.length);
  for (let i = 0; i < steps; i++) {
    signal?.throwIfAborted();
    const pick = Array.from({ length: batch }, () => seqs[Math.floor(rand() * seqs.length)]!);
    loss = (await policy.trainStep(pick, { kind: 'sft' })).loss;
  }
  return { steps, loss };
}

/**
 * The same weights and AdamW state under a new learning-rate schedule (SFT → RL). The
 * moments carry over on purpose: their second-moment estimates scale the first RL steps
 * by the gradient magnitudes SFT saw, where zeroed moments would make each early step a
 * full-`lr` sign step in every weight, which wrecks a small warm-started policy.
 */
export async function withOptimizer(policy: Policy, optim: OptimConfigInput): Promise<Policy> {
  const state = policy.state();
  const next = Policy.fromState({ ...state, optim: OptimConfig.parse({ ...state.optim, ...optim }) });
  await policy.release();
  return next;
}
