import path from 'node:path';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyChoiceInput } from '@/core/run-config';
import { episodes, policyVersions, rewards, runEvents, runs, turns } from '@/db/schema';
import { getModel, importModel } from '@/server/models/service';
import { exportRunPolicy } from '@/cli/run-model-export';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import { createRun } from '@/server/runs/service';
import { readHeader, readTensorF32 } from '@/lib/policy/hf/safetensors';
import { TEXT_CHECKER_VERSION } from './reward/text-reward';
import { STORIES260K_DIR } from '@/test/models';
import { loadRunPolicy } from './policy-store';
import { inProcessRl, untilRun } from './rl.testkit';

const MODEL = STORIES260K_DIR;
const logs: string[] = [];
const rl = await inProcessRl(
  'hf-loop',
  { CRUCIBLE_RL_SFT_STEPS: '50', CRUCIBLE_RL_HELDOUT_LIMIT: '4', CRUCIBLE_RL_PASS_K: '0', CRUCIBLE_RL_MAX_NEW_TOKENS: '24' },
  { log: (m) => logs.push(m) },
);
const { db } = rl;
beforeAll(async () => {
  await importModel(db, rl.artifacts, { name: 'stories260K', dir: MODEL }, 'test');
  rl.start();
});
afterAll(() => rl.stop());

const small = {
  suite: 'stories',
  seed: 3,
  iterations: 2,
  tasksPerIteration: 3,
  groupSize: 4,
  concurrency: 2,
  learningRate: 2e-3,
  klCoef: 0.01,
  updateEpochs: 1,
  miniBatches: 2,
};
const finished = (id: string) =>
  untilRun(
    db,
    id,
    'the run to end',
    (r) => ['completed', 'failed'].includes(r.status),
    240_000,
    () => logs.slice(-5).join(' | '),
  );

describe('RL on a registered Hugging Face model (stories260K, text tasks, real sandboxes, ONNX on CPU)', () => {
  it.each([
    ['full', { kind: 'hf', model: 'stories260K', training: 'full' }],
    ['lora', { kind: 'hf', model: 'stories260K', training: 'lora', lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'] } }],
    // bf16 mixed precision (emulated on the CPU provider): the run's precision reaches the sampler and learner
    ['lora-bf16', { kind: 'hf', model: 'stories260K', training: 'lora', precision: 'bf16', lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'] } }],
  ] satisfies [string, PolicyChoiceInput & { kind: 'hf' }][])(
    'trains it (%s): text episodes scored by the checker, versions by hash, the reference KL from v0',
    async (label, policy) => {
      const training = policy.training;
      const bf16 = label === 'lora-bf16';
      const run = await createRun(db, { name: `stories-${label}`, config: { ...small, policy } }, 'test');
      const done = await finished(run.id);
      expect(done.error).toBeNull();
      expect(done.status).toBe('completed');
      const versions = await db.select().from(policyVersions).where(eq(policyVersions.runId, run.id)).orderBy(asc(policyVersions.version));
      expect(versions.map((v) => v.version)).toEqual([0, 1, 2]);
      expect(new Set(versions.map((v) => v.sha256)).size).toBe(3); // every update changed the trained tensors
      expect(versions[2]!.executionProvider).toBe('cpu');
      const m = versions[2]!.metrics as Record<string, number>;
      expect(m.kl).toBeGreaterThan(0); // against v0, the reference (klCoef 0.01)
      expect(m.grad_norm).toBeGreaterThan(0);
      // the sampler's logprobs (HfPolicy, KV cache) are the trainer's (HfTrainer, full sequence) on the first, on-policy step
      // (in bf16 both round their products, but over different shapes: rounding flips, a little apart)
      // (in bf16 both multiply by the same rounded weights, but a cached K/V can round the other way)
      expect(Math.abs(m.logprob_mismatch!)).toBeLessThan(bf16 ? 5e-3 : 1e-4);
      // a checkpoint holds what training changes, applied to the registered model's weights by hash
      const h = await readHeader(await rl.artifacts.fetch(versions[2]!.sha256));
      expect(h.metadata).toMatchObject({ format: 'crucible-hf-rl-1', step: '4' }); // 2 iterations × 1 epoch × 2 minibatches
      expect(JSON.parse(h.metadata.training!)).toMatchObject({ training });
      if (training === 'lora') expect([...h.tensors.keys()].every((n) => /lora_[AB]/.test(n))).toBe(true);
      else expect(h.tensors.has('w.model.embed_tokens.weight')).toBe(true);
      // `models export --run`: the trained policy as a Hugging Face directory, which loads and samples with the trained weights
      const out = path.join(rl.dataDir, `export-${label}`);
      const exported = await exportRunPolicy({ db, store: rl.artifacts, root: rl.dataDir }, { run: run.id, format: 'hf', out });
      expect(exported).toMatchObject({ version: 2, model: 'stories260K', training });
      const trained = await HfRlPolicy.load(MODEL, await rl.artifacts.fetch(versions[2]!.sha256), { base: (await getModel(db, 'stories260K')).weightsSha256 });
      const reloaded = await HfPolicy.load(out);
      const probe = trained.encodePrompt('Lily had a red ball.');
      const [a, b] = [(await trained.score([probe]))[0]!.logprobs, Array.from(await reloaded.logits(probe))];
      expect(b.length).toBe(probe.length * reloaded.config.vocabSize);
      const lp = (logits: number[], i: number, t: number) => {
        const row = logits.slice(i * reloaded.config.vocabSize, (i + 1) * reloaded.config.vocabSize);
        const m = Math.max(...row);
        return row[t]! - m - Math.log(row.reduce((s, x) => s + Math.exp(x - m), 0));
      };
      for (let i = 1; i < probe.length; i++) expect(Math.abs(lp(b, i - 1, probe[i]!) - a[i]!)).toBeLessThan(1e-4);
      if (training === 'lora') {
        const peft = await exportRunPolicy({ db, store: rl.artifacts, root: rl.dataDir }, { run: run.id, format: 'peft', out: `${out}-peft` });
        expect(peft.files.map((f) => f.path).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
      } else
        await expect(exportRunPolicy({ db, store: rl.artifacts, root: rl.dataDir }, { run: run.id, format: 'peft', out: `${out}-peft` })).rejects.toThrow(
          /fine-tunes every weight .* export it with --format hf/,
        );
      await Promise.all([trained.release(), reloaded.release()]);
      // no warm start: the model is pretrained; the run says what it trains
      const events = await db.select().from(runEvents).where(eq(runEvents.runId, run.id));
      expect(events.find((e) => e.type === 'policy')?.message).toMatch(
        new RegExp(`registered model "stories260K" .*training ${training === 'lora' ? 'a LoRA adapter \\(rank 4' : 'every weight'}`),
      );
      const note = events.find((e) => e.type === 'policy')!.message;
      if (bf16) {
        // v0's bytes are the same for runs that differ only in precision: each gets a policy computing in its own
        const from = { store: rl.artifacts, dataDir: rl.dataDir, db };
        const [ref] = await db.select().from(runs).where(eq(runs.id, run.id));
        const asFp32 = { ...ref!, config: { ...ref!.config, policy: { ...ref!.config.policy, precision: 'fp32' as const } } };
        const [a16, a32] = [(await loadRunPolicy(ref!, versions[0]!, from)) as HfRlPolicy, (await loadRunPolicy(asFp32, versions[0]!, from)) as HfRlPolicy];
        expect([a16.trainer.precision, a32.trainer.precision]).toEqual(['bf16', 'fp32']);
      }
      if (bf16) expect(note).toMatch(/bf16 mixed precision \(float32 master weights/);
      else expect(note).not.toMatch(/mixed precision/);
      // each iteration says what the learner ran on
      const iterationEvent = events.find((e) => e.type === 'iteration')!;
      expect(iterationEvent.data).toMatchObject({ provider: 'cpu', matmuls: bf16 ? 'bf16-emulated' : 'fp32' });
      if (bf16) expect(iterationEvent.message).toMatch(/policy v1 \(learner: cpu, bf16-emulated\)$/);
      else expect(iterationEvent.message).toMatch(/policy v1$/);
      // the last iteration completes the run, its event saying the same
      expect(events.find((e) => e.type === 'completed')?.data).toMatchObject({ iteration: 1, provider: 'cpu' });
      expect(events.some((e) => e.type === 'sft')).toBe(false);
      // every episode: one turn of English text, scored by the text checker in a sandbox
      const eps = await db
        .select({ e: episodes, t: turns, r: rewards })
        .from(episodes)
        .innerJoin(turns, eq(turns.episodeId, episodes.id))
        .innerJoin(rewards, eq(rewards.episodeId, episodes.id))
        .where(and(eq(episodes.runId, run.id)));
      expect(eps).toHaveLength(2 * 3 * 4);
      for (const { e, t, r } of eps) {
        expect(e.status).toBe('scored');
        expect(r.harnessVersion).toBe(TEXT_CHECKER_VERSION);
        expect(e.runtime).toBe('bwrap');
        expect(t.tests).toHaveLength(4);
        expect(r.value).toBeCloseTo(t.tests!.filter((x) => x.passed).length / 4, 6);
        expect(t.action).not.toContain('\n');
        expect(t.lossMask!.filter((m) => m === 1).length).toBeGreaterThan(0);
      }
      // it reads as English: most words of the continuations are common words of children's stories
      const words = eps.flatMap(({ t }) => t.action.toLowerCase().match(/[a-z]+/g) ?? []);
      const common = new Set([
        'the',
        'a',
        'and',
        'to',
        'was',
        'she',
        'he',
        'her',
        'his',
        'it',
        'they',
        'with',
        'play',
        'happy',
        'said',
        'day',
        'one',
        'in',
        'of',
      ]);
      expect(words.filter((w) => common.has(w)).length / words.length).toBeGreaterThan(0.2);
    },
  );

  it('trains it with PPO: a value head on the model, trained with its LoRA adapter, in every checkpoint', async () => {
    const policy: PolicyChoiceInput = { kind: 'hf', model: 'stories260K', training: 'lora', lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'] } };
    const run = await createRun(db, { name: 'stories-ppo', config: { ...small, algorithm: 'ppo', policy } }, 'test');
    const done = await finished(run.id);
    expect(done.error).toBeNull();
    expect(done.status).toBe('completed');
    const [v2] = await db
      .select()
      .from(policyVersions)
      .where(and(eq(policyVersions.runId, run.id), eq(policyVersions.version, 2)));
    const file = await rl.artifacts.fetch(v2!.sha256);
    const h = await readHeader(file);
    expect(JSON.parse(h.metadata.training!)).toMatchObject({ training: 'lora', valueHead: true });
    const head = await readTensorF32(h, 'w.v_head.summary.weight');
    expect(head.length).toBe(64); // [1, hidden]
    expect(Math.max(...head.map(Math.abs))).toBeGreaterThan(0); // trained from zeros by the value loss
    const m = v2!.metrics as Record<string, number>;
    expect(Math.abs(m.logprob_mismatch!)).toBeLessThan(1e-4);
    const events = await db.select().from(runEvents).where(eq(runEvents.runId, run.id));
    expect(events.find((e) => e.type === 'policy')?.message).toMatch(/PPO: a value head \(zeros\) trained with it/);
  });

  it('refuses what a registered model cannot do yet, saying why', async () => {
    await expect(createRun(db, { name: 'nope', config: { ...small, policy: { kind: 'hf', model: 'no-such-model' } } }, 'test')).rejects.toThrow(
      /policy\.model: no model named "no-such-model" is registered; register it with `crucible models import DIR --name no-such-model`/,
    );
    // the built-in suite's I/O tasks need the byte model: refused at launch with the reason
    await expect(createRun(db, { name: 'io', config: { ...small, suite: 'builtin', policy: { kind: 'hf', model: 'stories260K' } } }, 'test')).rejects.toThrow(
      /a registered model runs text and repository tasks, but suite "builtin" holds io tasks/,
    );
  });
});
