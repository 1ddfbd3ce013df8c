import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyChoiceInput } from '@/core/run-config';
import { episodes, metricSamples, policyVersions, rewards, runEvents, tasks, turns } from '@/db/schema';
import { importModel } from '@/server/models/service';
import { createRun } from '@/server/runs/service';
import { importTasks } from '@/server/tasks/service';
import { storiesChatModel, STORIES260K_DIR } from '@/test/models';
import { defaultSystemPrompt } from '@/lib/agent/episode/run-episode';
import { REPO_GRADER_VERSION } from '@/lib/agent/grade/grade-repo-task';
import { ChatTemplateRenderer } from '@/lib/agent/render/chat-template';
import { repoSuiteJsonl } from '@/lib/agent/suite/repo-suite';
import { toolSchemas } from '@/lib/agent/tools/tool-definitions';
import { HfTokenizer } from '@/lib/policy/hf/tokenizer';
import { inProcessRl, untilRun } from './rl.testkit';
import { exportEpisodes } from '@/server/episodes/export';
import { exportHfDirectory } from '@/lib/policy/hf/export-hf';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { HfTrainer } from '@/lib/policy/hf/hf-trainer';
import { sftSequences, sftSteps } from '@/lib/policy/sft-sequences';
import { agentTaskPrompt } from '@/lib/agent/episode/task-prompt';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';

let hfRunId: string | undefined;

// A registered Hugging Face model as the agent on repository tasks, end to end: real Postgres,
// bwrap sandboxes, the real grader, ONNX on CPU. The model is stories260K with a Hermes-style
// chat template and a longer context added (test/models.ts): it writes stories, not tool
// calls, so this checks the plumbing (rendering in the model's own template, one exact token
// sequence per episode, the learner on it), not skill.
const logs: string[] = [];
const rl = await inProcessRl('hf-agent', { CRUCIBLE_RL_HELDOUT_LIMIT: '1', CRUCIBLE_RL_PASS_K: '0' }, { log: (m) => logs.push(m) });
const { db } = rl;
let chatDir = '';
beforeAll(async () => {
  chatDir = await storiesChatModel(path.join(rl.dataDir, 'stories-chat'), { maxPositionEmbeddings: 2048 });
  await importModel(db, rl.artifacts, { name: 'stories-chat', dir: chatDir }, 'test');
  await importModel(db, rl.artifacts, { name: 'stories260K', dir: STORIES260K_DIR }, 'test');
  await importTasks(db, { text: repoSuiteJsonl(), format: 'crucible-repo', suite: 'repo-suite', baseDir: '/' }, 'test');
  rl.start();
});
afterAll(() => rl.stop());

const TRAIN = ['js-semver-sort-numeric', 'py-intervals-touching'];
const config = {
  seed: 5,
  suite: 'repo-suite',
  algorithm: 'ppo' as const, // a story model scores 0 everywhere: GRPO's groups would carry no signal
  trainTasks: TRAIN,
  tasksPerIteration: 2,
  groupSize: 2,
  iterations: 1,
  maxTurns: 2,
  concurrency: 2,
  tools: ['bash' as const],
  agentTokenBudget: 1536,
  agentMaxNewTokens: 48,
  learningRate: 1e-3,
  klCoef: 0,
  updateEpochs: 1,
  miniBatches: 1,
  temperature: 1,
};
const lora: PolicyChoiceInput = { kind: 'hf', model: 'stories-chat', training: 'lora', lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'] } };

describe('a registered Hugging Face model as the agent on repository tasks', () => {
  it('acts in its own chat template; each episode is one exact token sequence, graded, and trained on', async () => {
    const run = await createRun(db, { name: 'hf-agents', config: { ...config, policy: lora } }, 'test');
    const done = await untilRun(
      db,
      run.id,
      'the run to finish',
      (r) => r.status === 'completed' || r.status === 'failed',
      200_000,
      () => logs.slice(-5).join(' | '),
    );
    expect(done.error).toBeNull();
    expect(done.status).toBe('completed');

    const events = await db.select().from(runEvents).where(eq(runEvents.runId, run.id));
    expect(events.find((e) => e.type === 'agent_setup')?.message).toMatch(
      /rendered with model "stories-chat"'s chat template.*; tool calls in the hermes format \(as its chat template renders them\)/,
    );
    expect(events.find((e) => e.type === 'policy')?.message).toMatch(/agent conversations in its own chat template, each episode at most 1536 tokens/);
    expect(events.some((e) => e.type === 'sft_skipped')).toBe(false); // a pretrained model has no warm start to skip

    const eps = await db.select({ e: episodes, t: tasks }).from(episodes).innerJoin(tasks, eq(tasks.id, episodes.taskId)).where(eq(episodes.runId, run.id));
    expect(eps).toHaveLength(4);
    expect(eps.every(({ e }) => ['scored', 'sandbox_error', 'env_mismatch'].includes(e.status))).toBe(true);
    const scored = eps.filter(({ e }) => e.status === 'scored');
    expect(scored.length).toBeGreaterThan(0);

    const tok = await HfTokenizer.load(chatDir);
    const renderer = new ChatTemplateRenderer(tok, { chatTemplate: tok.chatTemplate! });
    for (const { e, t } of scored) {
      const [r] = await db.select().from(rewards).where(eq(rewards.episodeId, e.id));
      expect(r!.value).toBe(e.grading!.reward);
      expect(r!.harnessVersion).toBe(`${REPO_GRADER_VERSION}@workspace:${e.grading!.workspaceSha256}`);
      const ts = await db.select().from(turns).where(eq(turns.episodeId, e.id)).orderBy(asc(turns.index));
      const ids = ts.flatMap((x) => x.tokenIds!);
      const mask = ts.flatMap((x) => x.lossMask!);
      // it opens with the model's own template over system + user + the chosen tools' schemas (mask 0)
      const user = agentTaskPrompt(await loadStoredRepoTask(db, t.id));
      const prompt = renderer.begin({ system: defaultSystemPrompt(renderer.toolCallFormat), user, tools: toolSchemas(['bash', 'submit']) }).sequence.ids;
      expect(ids.slice(0, prompt.length)).toEqual(prompt);
      expect(mask.slice(0, prompt.length).every((m) => m === 0)).toBe(true);
      expect(tok.decode(prompt, { skipSpecial: false })).toMatch(/^<\|im_start\|>system\n[\s\S]*<tools>[\s\S]*"bash"[\s\S]*<\|im_start\|>assistant\n$/);
      expect(mask.lastIndexOf(1) + 1).toBeLessThanOrEqual(1536);
      for (const x of ts) {
        const own = x.tokenIds!.filter((_, i) => x.lossMask![i] === 1);
        expect(own.length).toBeGreaterThan(0);
        expect(x.action).toBe(renderer.assistantText(own).replace(/\u0000/g, '\uFFFD'));
        // after the message: the template's tool turn and the next generation prompt, or nothing (the last turn)
        const rest = tok.decode(x.tokenIds!.slice(x.lossMask!.lastIndexOf(1) + 1), { skipSpecial: false });
        // (a sentencepiece tokenizer's dummy prefix puts a space at the start of each separately tokenized piece)
        if (rest) expect(rest).toMatch(/<\|im_start\|>tool\n<tool_response>\n[\s\S]*<\/tool_response><\/s>\s*<\|im_start\|>assistant\n$/);
      }
    }

    // the learner trained one sequence per scored episode on exactly the stored tokens: recomputed over the
    // whole stored sequence, its logprobs are the sampler's, turn by turn (nothing re-tokenized between turns)
    const m = await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id));
    const metric = (name: string) => m.filter((x) => x.name === name).map((x) => x.value);
    expect(metric('trained_sequences')).toEqual([scored.length]);
    expect(Math.max(...metric('logprob_mismatch').map(Math.abs))).toBeLessThan(1e-4);
    const versions = await db.select().from(policyVersions).where(eq(policyVersions.runId, run.id)).orderBy(asc(policyVersions.version));
    expect(versions.map((v) => v.version)).toEqual([0, 1]);
    expect(versions[1]!.sha256).not.toBe(versions[0]!.sha256);
    hfRunId = run.id;
  }, 240_000);

  it("export → SFT → sample: the run's episodes tune the model on their assistant tokens, and the tuned directory samples", async () => {
    expect(hfRunId).toBeTruthy();
    const { items } = await exportEpisodes(db, { runId: hfRunId!, limit: 200 });
    expect(items.length).toBeGreaterThan(0);
    const trainer = await HfTrainer.load(chatDir, { optim: { lr: 3e-3 } }, { providers: ['cpu'] });
    const seqs = sftSequences(
      items.map((e) => JSON.stringify(e)),
      trainer.config,
    );
    expect(seqs.every((q) => q.lossMask.some((m) => m === 1) && q.lossMask.some((m) => m === 0))).toBe(true);
    const maskedMean = async (t: HfTrainer) => {
      const scored = await t.score(seqs.map((q) => q.tokens));
      const lps = scored.flatMap((r, i) => r.logprobs.filter((_, k) => seqs[i]!.lossMask[k] === 1));
      return lps.reduce((a, b) => a + b, 0) / lps.length;
    };
    const before = await maskedMean(trainer);
    const losses = await sftSteps(trainer, seqs, { steps: 6, batch: 2, seed: 1 });
    expect(losses.at(-1)!).toBeLessThan(losses[0]!);
    const out = path.join(rl.dataDir, 'stories-chat-sft');
    await exportHfDirectory({ from: chatDir, out, weights: trainer.exportWeights() });
    await trainer.release();
    // the tuned directory: its assistant tokens are likelier than the base's, and it samples
    const tuned = await HfTrainer.load(out, {}, { providers: ['cpu'] });
    expect(await maskedMean(tuned)).toBeGreaterThan(before);
    await tuned.release();
    const policy = await HfPolicy.load(out, { providers: ['cpu'] });
    const [c] = await policy.sample([seqs[0]!.tokens.slice(0, seqs[0]!.lossMask.indexOf(1))], { maxNewTokens: 8, seed: 1 });
    expect(c!.tokens.length).toBeGreaterThan(0);
    // the export's lines are the data `crucible models sft` reads; a record from another tokenizer is refused by name
    expect(() => sftSequences([JSON.stringify({ tokens: { ids: [1, 99999], loss_mask: [0, 1] } })], trainer.config)).toThrow(
      /token id 99999 is past this model's vocabulary/,
    );
  }, 120_000);

  it('refuses, at launch, a model with no chat template on a repository suite, saying what to add', async () => {
    await expect(
      createRun(db, { name: 'no-template', config: { ...config, policy: { kind: 'hf', model: 'stories260K', training: 'full' } } }, 'test'),
    ).rejects.toThrow(/model "stories260K" has no chat template, and suite "repo-suite" holds repository tasks, .* add chat_template\.jinja/);
  });
});
