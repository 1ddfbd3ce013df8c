import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits, type RunConfigInput } from '@/core/run-config';
import { metricSamples, tasks, taskSuites, runs } from '@/db/schema';
import { runAgentEpisode } from '@/lib/agent/episode/run-episode';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { ScriptedPolicy } from '@/lib/agent/policies/scripted';
import { ChatTemplateRenderer } from '@/lib/agent/render/chat-template';
import { goldScript } from '@/lib/agent/suite/gold-script';
import { repoSuiteJsonl } from '@/lib/agent/suite/repo-suite';
import { unreadableWorkspaceGrade } from '@/lib/agent/episode/unreadable-grade';
import { exportHfDirectory } from '@/lib/policy/hf/export-hf';
import { HfTokenizer } from '@/lib/policy/hf/tokenizer';
import { HfTrainer } from '@/lib/policy/hf/hf-trainer';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import { sftSequences, sftSteps } from '@/lib/policy/sft-sequences';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { resolveEnvironment } from '@/lib/sandbox/env/env-builtin';
import { exportEpisodes } from '@/server/episodes/export';
import { storeCliEpisode } from '@/server/episodes/store-cli-episode';
import { importModel } from '@/server/models/service';
import { createRun, transitionRun } from '@/server/runs/service';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { importTasks } from '@/server/tasks/service';
import { agentSystemPrompt, playedRepoEpisode, playRepoEpisode, repoEpisodeInfra } from './agent-episode';
import { agentTurnRows } from './agent-turn-rows';
import { followRun, openRlExperiment } from './experiment-harness';
import { mcnemarOneSided, signFlipTest } from './paired';
import { latestVersion, loadRunPolicyForTraining, versionRow } from './policy-store';

/**
 * Issue 35 §5, an agent that acts, end to end on this machine: stories260K made into a chat
 * model (a Hermes-style tool-calling template, its context raised to 2048 positions: RoPE has no
 * learned positions; its tokenizer keeping runs of spaces) is warm-started by SFT on exported gold trajectories of the built-in
 * repository suite (each task's reference fix played as `str_replace` calls and `submit` by a
 * scripted policy in the model's own template, graded, stored and exported as any episode),
 * registered, then trained by agent RL (GRPO) on the same tasks. The control arm is v0, the SFT
 * model: what a learning-rate-0 run holds for its whole run (rl.learn skips the learner at lr 0).
 * Both arms play every task `samples` times with the same seeds; solved episodes are compared
 * pair by pair (exact McNemar) and per task (sign flip), on held-in and held-out tasks.
 */
export const AGENT_LEARNING_CONFIG = {
  suite: 'repo-suite',
  policy: { kind: 'hf', model: 'stories-agent', training: 'full' },
  algorithm: 'grpo',
  seed: 1,
  groupSize: 4,
  tasksPerIteration: 8,
  iterations: 100_000,
  maxTurns: 4,
  concurrency: 2,
  tools: ['str_replace', 'submit'],
  agentTokenBudget: 2048,
  agentMaxNewTokens: 512,
  agentTimeBudgetS: 120,
  // 1e-3 undid the SFT in two iterations (valid tool calls per turn 0.44 → 0): Adam moves every weight by about lr a step
  learningRate: 2e-4,
  klCoef: 0,
  updateEpochs: 1,
  miniBatches: 2,
  temperature: 1,
  heldout: { tasks: 2, passAtK: 0 },
} satisfies RunConfigInput;

/** The run's workers: no byte-model warm start (a registered model starts as registered), no pass@k. */
export const AGENT_LEARNING_ENV = { CRUCIBLE_RL_SFT_STEPS: '0', CRUCIBLE_RL_PASS_K: '0', CRUCIBLE_RL_HELDOUT_LIMIT: '2' };

/**
 * A Hermes-style chat template (tool calls as `<tool_call>` JSON, EOS ends every message) that
 * lists each tool as one line, `name(parameters): description`, instead of its JSON schema: a
 * model's template decides how tools are shown, and the schemas alone would be ~900 of a small
 * model's tokens per episode.
 */
const TEMPLATE = `{%- for message in messages -%}
{{- '<|im_start|>' + message.role + '\\n' -}}
{%- if message.role == 'system' and tools is defined -%}
{{- message.content + '\\n# Tools' -}}
{%- for t in tools -%}{{- '\\n- ' + t.function.name + '(' -}}{%- for k, v in t.function.parameters.properties.items() -%}{{- (', ' if not loop.first else '') + k -}}{%- endfor -%}{{- '): ' + t.function.description -}}{%- endfor -%}
{%- elif message.role == 'tool' -%}
{{- '<tool_response>\\n' + message.content + '\\n</tool_response>' -}}
{%- else -%}
{{- message.content -}}
{%- endif -%}
{{- eos_token + '\\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}`;

/** The three steps of tok512's normalizer that drop leading, repeated and trailing spaces (SentencePiece's remove_extra_whitespaces). */
const SPACE_DROPPING = new Set(['\\A +', ' {2,}', '[ \u2581]+\\z']);

/**
 * stories260K as a chat model with tools: a copy with the template, 2048 positions, and a
 * tokenizer that keeps whitespace. tok512 normalizes like SentencePiece's
 * `remove_extra_whitespaces` (runs of spaces collapse to one), which no code survives: an
 * indented `old_str` would never match. The copy drops those three normalizer steps; the
 * vocabulary and every id are unchanged, and stories (single spaces) tokenize as before.
 */
export async function storiesAgentBase(modelDir: string, out: string): Promise<string> {
  await fs.cp(modelDir, out, { recursive: true });
  await fs.writeFile(path.join(out, 'chat_template.jinja'), TEMPLATE);
  const config = JSON.parse(await fs.readFile(path.join(out, 'config.json'), 'utf8')) as Record<string, unknown>;
  await fs.writeFile(path.join(out, 'config.json'), JSON.stringify({ ...config, max_position_embeddings: 2048 }, null, 2));
  const tokFile = path.join(out, 'tokenizer.json');
  const tok = JSON.parse(await fs.readFile(tokFile, 'utf8')) as { normalizer: { normalizers: { pattern?: { Regex?: string } }[] } };
  const before = tok.normalizer.normalizers.length;
  tok.normalizer.normalizers = tok.normalizer.normalizers.filter((n) => !SPACE_DROPPING.has(n.pattern?.Regex ?? ''));
  if (tok.normalizer.normalizers.length !== before - 3) throw new Error(`${tokFile}: expected tok512's three whitespace-dropping normalizer steps`);
  await fs.writeFile(tokFile, JSON.stringify(tok));
  return out;
}

export type ArmMeasure = {
  /** per task: solved (every FAIL_TO_PASS and PASS_TO_PASS test passes) per sample, in seed order */
  solved: Record<string, boolean[]>;
  reward: number;
  validToolCallsPerTurn: number;
  turnsPerEpisode: number;
  /** per task, the first sample's first message (cut at 300 characters), to read */
  examples: Record<string, string>;
};

export type ArmComparison = {
  tasks: string[];
  samples: number;
  solved: { main: number; control: number };
  reward: { main: number; control: number };
  validToolCallsPerTurn: { main: number; control: number };
  /** exact one-sided McNemar over (task, seed) pairs: b = solved only by RL, c = only by the control */
  mcnemar: { b: number; c: number; p: number };
  /** one-sided sign flip over tasks (per-task solved share, RL − control) */
  signFlipP: number;
};

export type AgentLearningResult = {
  trainTasks: string[];
  heldoutTasks: string[];
  gold: { episodes: number; resolved: number; tokens: number[] };
  sft: { steps: number; lossFirst: number; lossLast: number; seconds: number };
  rl: { iterations: number; seconds: number; solvedCurve: number[]; validCallsCurve: number[]; rewardCurve: number[] };
  /** the chat model before SFT on the held-in tasks (the same seeds, at most 2 samples a task) */
  base: { solved: number; validToolCallsPerTurn: number; samples: number };
  heldIn: ArmComparison;
  heldOut: ArmComparison;
  config: RunConfigInput;
};

const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);

/**
 * The `n` tasks of `split` whose gold trajectories are shortest (every message within the run's
 * message budget): the ones a 260K-parameter model can hold.
 */
function shortestGold(all: RepoTask[], split: Map<string, string>, want: string, n: number, tokensOf: (t: RepoTask) => number): RepoTask[] {
  return all
    .filter((t) => split.get(t.id) === want)
    .map((t) => ({ t, n: tokensOf(t) }))
    .filter((x) => Number.isFinite(x.n))
    .sort((a, b) => a.n - b.n || (a.t.id < b.t.id ? -1 : 1))
    .slice(0, n)
    .map((x) => x.t);
}

export async function runAgentLearning(o: {
  modelDir: string;
  trainTasks: number;
  heldoutTasks: number;
  sftSteps: number;
  sftLr: number;
  minutes: number;
  iterations?: number;
  samples: number;
  learningRate?: number;
  /** GRPO group size (default 4); each iteration plays every held-in task once per group slot */
  groupSize?: number;
  seed?: number;
  log?: (line: string) => void;
}): Promise<AgentLearningResult> {
  const log = o.log ?? (() => {});
  const x = await openRlExperiment('agent-learning', AGENT_LEARNING_ENV);
  const { db, store, manager } = x;
  const config = {
    ...AGENT_LEARNING_CONFIG,
    learningRate: o.learningRate ?? AGENT_LEARNING_CONFIG.learningRate,
    seed: o.seed ?? AGENT_LEARNING_CONFIG.seed,
    iterations: o.iterations ?? AGENT_LEARNING_CONFIG.iterations,
    groupSize: o.groupSize ?? AGENT_LEARNING_CONFIG.groupSize,
    tasksPerIteration: o.trainTasks,
  };
  try {
    const baseDir = await storiesAgentBase(o.modelDir, path.join(x.dir, 'stories-chat'));
    await importModel(db, store, { name: 'stories-chat', dir: baseDir }, 'bench');
    await importTasks(db, { text: repoSuiteJsonl(), format: 'crucible-repo', suite: 'repo-suite', baseDir: '/' }, 'bench');
    const rows = await db
      .select({ id: tasks.id, externalId: tasks.externalId, split: tasks.split })
      .from(tasks)
      .innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId))
      .where(eq(taskSuites.name, 'repo-suite'));
    const stored = new Map<string, { rowId: string; task: RepoTask }>();
    for (const r of rows) stored.set(r.externalId, { rowId: r.id, task: await loadStoredRepoTask(db, r.id) });
    const split = new Map(rows.map((r) => [r.externalId, r.split]));

    // the renderer and prompt the run will use: the model's own template, the run's system prompt and tools
    const tok = await HfTokenizer.load(baseDir);
    const renderer = new ChatTemplateRenderer(tok, { chatTemplate: tok.chatTemplate! });
    const systemPrompt = agentSystemPrompt({ agentSystemPrompt: undefined }, renderer.toolCallFormat);
    const scripts = new Map<string, ReturnType<typeof goldScript>>();
    const goldTokens = (t: RepoTask) => {
      let steps;
      try {
        steps = goldScript(t.workspace, t.goldPatch ?? '');
      } catch {
        return Infinity;
      }
      if (steps.some((s) => !('name' in s) || !config.tools.includes(s.name as never))) return Infinity;
      const lens = steps.map(
        (s) => renderer.assistantTokens(renderer.toolCallFormat.format([s as { name: string; arguments: Record<string, unknown> }])).length,
      );
      if (Math.max(...lens) > config.agentMaxNewTokens) return Infinity;
      scripts.set(t.id, steps);
      return lens.reduce((a, b) => a + b, 0);
    };
    const all = [...stored.values()].map((s) => s.task);
    const train = shortestGold(all, split, 'train', o.trainTasks, goldTokens);
    const heldout = shortestGold(all, split, 'heldout', o.heldoutTasks, goldTokens);
    log(`held-in tasks: ${train.map((t) => t.id).join(', ')}`);
    log(`held-out tasks: ${heldout.map((t) => t.id).join(', ')}`);

    // 1. gold trajectories: each train task's reference fix played in the model's template, graded, stored, exported
    const env = train[0]!.environment;
    resolveEnvironment(env, x.storeDir);
    const goldResolved: number[] = [];
    const goldLengths: number[] = [];
    for (const t of train) {
      const r = await runAgentEpisode({
        manager,
        task: t,
        env: t.environment,
        runtime: 'bwrap',
        limits: episodeSandboxLimits,
        policy: new ScriptedPolicy(scripts.get(t.id)!),
        renderer,
        systemPrompt,
        tools: [...config.tools],
        maxTurns: config.maxTurns,
        tokenBudget: config.agentTokenBudget,
        maxNewTokens: config.agentMaxNewTokens,
        timeBudgetMs: config.agentTimeBudgetS * 1000,
        grade: (task, patch) => gradeRepoTask(manager, task, patch, { runtime: 'bwrap', limits: episodeSandboxLimits }),
        unreadable: unreadableWorkspaceGrade,
      });
      const g = r.grade;
      if (r.end !== 'submitted' || !g || g.reward === null)
        throw new Error(`the gold trajectory of ${t.id} did not finish: ${r.end} ${r.error ?? g?.error ?? ''}`);
      goldResolved.push(g.components.resolved ?? 0);
      goldLengths.push(r.sequence.ids.length);
      await storeCliEpisode(
        db,
        {
          runName: 'gold-trajectories',
          taskId: stored.get(t.id)!.rowId,
          played: playedRepoEpisode(
            t,
            { result: r, rows: agentTurnRows(r), infra: repoEpisodeInfra(r) },
            (grade) => ({ reward: grade.reward!, components: grade.components }),
            {},
          ),
          startedAt: new Date(),
          host: 'bench',
          details: { gold: true },
        },
        'bench',
      );
    }
    log(
      `gold trajectories: ${goldResolved.filter((v) => v === 1).length} of ${train.length} resolved, ${Math.min(...goldLengths)}–${Math.max(...goldLengths)} tokens`,
    );
    const [goldRun] = await db.select({ id: runs.id }).from(runs).where(eq(runs.name, 'gold-trajectories'));
    const { items } = await exportEpisodes(db, { runId: goldRun!.id, minReward: 1, limit: 200 });

    // 2. SFT on the export (the `crucible models sft` path), registered as the run's model
    const t0 = performance.now();
    const trainer = await HfTrainer.load(baseDir, { optim: { lr: o.sftLr, warmupSteps: 0 } }, { providers: ['cpu'] });
    let losses: number[];
    const tunedDir = path.join(x.dir, 'stories-agent');
    try {
      const seqs = sftSequences(
        items.map((e) => JSON.stringify(e)),
        trainer.config,
      );
      losses = await sftSteps(trainer, seqs, { steps: o.sftSteps, batch: Math.min(4, seqs.length), seed: config.seed });
      await exportHfDirectory({ from: baseDir, out: tunedDir, weights: trainer.exportWeights() });
    } finally {
      await trainer.release();
    }
    const sftS = (performance.now() - t0) / 1000;
    log(`SFT: ${items.length} trajectories, ${o.sftSteps} steps, loss ${losses[0]!.toFixed(3)} → ${losses.at(-1)!.toFixed(3)} in ${sftS.toFixed(0)} s`);
    await importModel(db, store, { name: 'stories-agent', dir: tunedDir }, 'bench');

    // 3. agent RL from the SFT model
    x.start();
    const t1 = performance.now();
    const run = await createRun(db, { name: 'agent-learning', config: { ...config, trainTasks: train.map((t) => t.id) } }, 'bench');
    await followRun(x, run.id, Date.now() + o.minutes * 60_000, log);
    await transitionRun(db, run.id, 'cancel', 'bench').catch(() => undefined);
    const rlS = (performance.now() - t1) / 1000;
    await x.stopLoop();
    const [r] = await db.select().from(runs).where(eq(runs.id, run.id));
    const v0 = (await versionRow(db, run.id, 0))!;
    const vn = (await latestVersion(db, run.id))!;
    if (vn.version < 1) throw new Error(`no iteration finished within ${o.minutes} min: nothing to compare`);
    const m = await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id));
    const curve = (name: string) =>
      m
        .filter((s) => s.name === name)
        .sort((a, b) => a.step! - b.step!)
        .map((s) => s.value);

    // 4. both arms on every chosen task, the same seeds
    const from = { store, dataDir: x.dir, db };
    const measure = async (version: typeof v0, list: RepoTask[]): Promise<ArmMeasure> => {
      const policy = await loadRunPolicyForTraining(r!, version, from);
      try {
        return await playArm(policy, list);
      } finally {
        await policy.release();
      }
    };
    const playArm = async (policy: RlPolicy, list: RepoTask[], samples = o.samples): Promise<ArmMeasure> => {
      const solved: Record<string, boolean[]> = {};
      const examples: Record<string, string> = {};
      const rewards: number[] = [];
      let calls = 0;
      let turns = 0;
      let episodes = 0;
      for (const t of list) {
        solved[t.id] = [];
        for (let j = 0; j < samples; j++) {
          const p = await playRepoEpisode({
            run: r!,
            task: t,
            risk: 'routine',
            policy,
            manager,
            settings: { testTimeoutMs: x.rl.CRUCIBLE_RL_TEST_TIMEOUT_MS },
            seed: 7000 + j,
            temperature: config.temperature,
          });
          if (p.infra) throw new Error(`evaluation episode of ${t.id} failed (infrastructure): ${p.infra.reason}`);
          const g = p.result.grade!;
          solved[t.id]!.push(g.components.resolved === 1);
          if (j === 0) examples[t.id] = (p.result.turns[0]?.assistant ?? '').slice(0, 300);
          rewards.push(g.reward!);
          episodes++;
          turns += p.result.turns.length;
          calls += p.result.turns.reduce((a, tu) => a + tu.toolCalls.filter((c) => !c.rejected).length, 0);
        }
      }
      return { solved, reward: mean(rewards), validToolCallsPerTurn: turns ? calls / turns : 0, turnsPerEpisode: episodes ? turns / episodes : 0, examples };
    };
    const compare = (main: ArmMeasure, control: ArmMeasure, list: RepoTask[]): ArmComparison => {
      let b = 0;
      let c = 0;
      const share = (a: boolean[]) => mean(a.map((v) => (v ? 1 : 0)));
      for (const t of list)
        main.solved[t.id]!.forEach((s, j) => {
          const k = control.solved[t.id]![j]!;
          if (s && !k) b++;
          if (k && !s) c++;
        });
      const all = (a: ArmMeasure) => mean(list.map((t) => share(a.solved[t.id]!)));
      return {
        tasks: list.map((t) => t.id),
        samples: o.samples,
        solved: { main: all(main), control: all(control) },
        reward: { main: main.reward, control: control.reward },
        validToolCallsPerTurn: { main: main.validToolCallsPerTurn, control: control.validToolCallsPerTurn },
        mcnemar: mcnemarOneSided(b, c),
        signFlipP: signFlipTest(list.map((t) => share(main.solved[t.id]!) - share(control.solved[t.id]!))).p,
      };
    };
    log(`evaluating v${vn.version} (RL) against v0 (the SFT model, the no-update control): ${o.samples} samples per task`);
    const baseSamples = Math.min(2, o.samples);
    const basePolicy = await HfRlPolicy.create(
      baseDir,
      { training: { training: 'full' }, optim: {}, seed: config.seed, base: 'stories-chat' },
      { providers: ['cpu'] },
    );
    const baseArm = await playArm(basePolicy, train, baseSamples).finally(() => basePolicy.release());
    const base = {
      solved: mean(
        Object.values(baseArm.solved)
          .flat()
          .map((v) => (v ? 1 : 0)),
      ),
      validToolCallsPerTurn: baseArm.validToolCallsPerTurn,
      samples: baseSamples,
    };
    log(
      `before SFT: ${base.validToolCallsPerTurn.toFixed(2)} valid tool calls per turn, ${(100 * base.solved).toFixed(0)}% solved; e.g. ${JSON.stringify(Object.values(baseArm.examples)[0])}`,
    );
    const arms = { main: await measure(vn, train), control: await measure(v0, train) };
    for (const t of train)
      log(`  ${t.id}, first message:\n    RL:      ${JSON.stringify(arms.main.examples[t.id])}\n    control: ${JSON.stringify(arms.control.examples[t.id])}`);
    const heldIn = compare(arms.main, arms.control, train);
    const heldOut = compare(await measure(vn, heldout), await measure(v0, heldout), heldout);
    return {
      trainTasks: train.map((t) => t.id),
      heldoutTasks: heldout.map((t) => t.id),
      gold: { episodes: train.length, resolved: goldResolved.filter((v) => v === 1).length, tokens: goldLengths },
      sft: { steps: o.sftSteps, lossFirst: losses[0]!, lossLast: losses.at(-1)!, seconds: sftS },
      rl: {
        iterations: vn.version,
        seconds: rlS,
        solvedCurve: curve('solved_rate'),
        validCallsCurve: curve('valid_tool_calls_per_turn'),
        rewardCurve: curve('reward_mean'),
      },
      base,
      heldIn,
      heldOut,
      config: { ...config, trainTasks: train.map((t) => t.id) },
    };
  } finally {
    await x.close();
  }
}
