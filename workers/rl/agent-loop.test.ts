import { and, asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodes, metricSamples, policyVersions, rewards, runEvents, tasks, turns } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { importTasks } from '@/server/tasks/service';
import { REPO_GRADER_VERSION } from '@/lib/agent/grade/grade-repo-task';
import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import { repoSuiteJsonl } from '@/lib/agent/suite/repo-suite';
import { toolSchemas } from '@/lib/agent/tools/tool-definitions';
import { inProcessRl, untilRun } from './rl.testkit';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ParquetReader } from '@dsnp/parquetjs';
import { exportEpisodes, type ExportedEpisode } from '@/server/episodes/export';
import { episodesParquet } from '@/server/episodes/export-parquet';
import { agentTaskPrompt } from '@/lib/agent/episode/task-prompt';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';

let agentRunId: string | undefined;

// A short RL run on the built-in repository suite, end to end: real Postgres, bwrap sandboxes
// (the `repo` environment), the byte ONNX policy acting through tools, the real grader, PPO.
const logs: string[] = [];
const rl = await inProcessRl('agent', { CRUCIBLE_RL_SFT_STEPS: '20', CRUCIBLE_RL_HELDOUT_LIMIT: '1', CRUCIBLE_RL_PASS_K: '0' }, { log: (m) => logs.push(m) });
const { db } = rl;
beforeAll(async () => {
  await importTasks(db, { text: repoSuiteJsonl(), format: 'crucible-repo', suite: 'repo-suite', baseDir: '/' }, 'test');
  rl.start();
});
afterAll(() => rl.stop());

const TRAIN = ['js-semver-sort-numeric', 'py-intervals-touching'];
const SYSTEM = 'You fix bugs. Call bash to look around, then submit.';
const renderer = new ByteTemplateRenderer();
const eos = renderer.tokenizer.spec.eos;

describe('RL on repository tasks (agent episodes, one token sequence each)', () => {
  it('runs, grades, stores each episode as turns whose concatenation is what the learner trains on, and publishes v1', async () => {
    const config = {
      seed: 3,
      suite: 'repo-suite',
      algorithm: 'ppo' as const, // the random policy scores 0 everywhere: GRPO's groups would carry no signal
      trainTasks: TRAIN,
      tasksPerIteration: 2,
      groupSize: 2,
      iterations: 1,
      maxTurns: 2,
      concurrency: 2,
      tools: ['bash' as const],
      agentTokenBudget: 2048,
      agentMaxNewTokens: 40,
      learningRate: 1e-3,
      klCoef: 0,
      updateEpochs: 1,
      miniBatches: 1,
      temperature: 1,
      // the run's own system prompt: in every episode's prompt and in the export
      agentSystemPrompt: SYSTEM,
    };
    const run = await createRun(db, { name: 'agents', config }, 'test');
    const done = await untilRun(
      db,
      run.id,
      'the run to finish',
      (r) => r.status === 'completed' || r.status === 'failed',
      170_000,
      () => logs.slice(-5).join(' | '),
    );
    expect(done.error).toBeNull();
    expect(done.status).toBe('completed');

    // the start says what it did instead of the I/O warm start and evaluation
    const events = await db.select().from(runEvents).where(eq(runEvents.runId, run.id));
    const types = events.map((e) => e.type);
    const t0 = run.createdAt.getTime();
    console.log(`events: ${events.map((e) => `${e.type}@${((e.at.getTime() - t0) / 1000).toFixed(1)}s`).join(' ')}`);
    expect(types).toEqual(expect.arrayContaining(['agent_setup', 'sft_skipped', 'heldout_agent']));

    const eps = await db
      .select({ e: episodes, t: tasks })
      .from(episodes)
      .innerJoin(tasks, eq(tasks.id, episodes.taskId))
      .where(eq(episodes.runId, run.id))
      .orderBy(asc(episodes.groupIndex), asc(episodes.sampleIndex));
    expect(eps).toHaveLength(4);
    console.log(`episodes: ${eps.map(({ e }) => `${e.status}/${e.endReason}/${e.turnsCount}`).join(' ')}`);
    // scored or masked, never failed (an infrastructure failure is retried or masked, not scored 0)
    expect(eps.every(({ e }) => ['scored', 'sandbox_error', 'env_mismatch'].includes(e.status))).toBe(true);
    const scored = eps.filter(({ e }) => e.status === 'scored');
    expect(scored.length).toBeGreaterThan(0);
    expect(new Set(eps.map(({ t }) => t.externalId))).toEqual(new Set(TRAIN));

    const [v0] = await db
      .select()
      .from(policyVersions)
      .where(and(eq(policyVersions.runId, run.id), eq(policyVersions.version, 0)));
    const rs = await db
      .select()
      .from(rewards)
      .where(
        inArray(
          rewards.episodeId,
          scored.map(({ e }) => e.id),
        ),
      );
    expect(rs).toHaveLength(scored.length);

    // the user message is the task's prompt: statement, layout, test command (lib/agent/episode/task-prompt.ts)
    const prompt = async (taskId: string) =>
      renderer.begin({ system: SYSTEM, user: agentTaskPrompt(await loadStoredRepoTask(db, taskId)), tools: toolSchemas(['bash', 'submit']) }).sequence.ids;
    let policyTokens = 0;
    for (const { e, t } of scored) {
      // the grading run: per-test results from the clean grading sandbox, the patch, why the episode ended
      const g = e.grading!;
      expect(g.status).toBe('graded');
      expect(g.tests.length).toBeGreaterThan(0);
      expect(g.tests.every((x) => typeof x.name === 'string' && typeof x.passed === 'boolean')).toBe(true);
      expect(typeof g.patch).toBe('string');
      expect(g.end).toBe(e.endReason);
      expect(g.workspaceSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
      // the reward: the grade, its components, and its provenance (environment, grader, workspace, policy version)
      const r = rs.find((x) => x.episodeId === e.id)!;
      // the test score (0 here) blended with style and efficiency, which are only earned with a test score
      expect(r.value).toBe(g.reward);
      expect(r.components).toMatchObject({ tests: g.reward, style: 0, efficiency: 0, turns: e.turnsCount });
      expect(r.components).toMatchObject({ f2p: expect.any(Number), p2p: expect.any(Number) });
      expect(r.envHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(r.harnessVersion).toBe(`${REPO_GRADER_VERSION}@workspace:${g.workspaceSha256}`);
      expect(r.policyVersionId).toBe(v0!.id);

      const ts = await db.select().from(turns).where(eq(turns.episodeId, e.id)).orderBy(asc(turns.index));
      expect(ts.map((x) => x.index)).toEqual(ts.map((_, i) => i));
      expect(ts).toHaveLength(e.turnsCount);
      const ids = ts.flatMap((x) => x.tokenIds!);
      const mask = ts.flatMap((x) => x.lossMask!);
      const lps = ts.flatMap((x) => x.logprobs!);
      expect(mask).toHaveLength(ids.length);
      expect(lps).toHaveLength(ids.length);
      // the first row opens with the system + user prompt (mask 0), rendered with the chosen tools only
      const p = await prompt(t.id);
      expect(ids.slice(0, p.length)).toEqual(p);
      expect(mask.slice(0, p.length).every((m) => m === 0)).toBe(true);
      expect(renderer.tokenizer.decode(p)).not.toContain('"read_file"');
      expect(mask.lastIndexOf(1) + 1).toBeLessThanOrEqual(2048); // within the budget: the learner's sequence fits the context
      for (const x of ts) {
        // each row: its assistant message (mask 1, with the sampler's logprobs), then tool messages (mask 0)
        const own = x.tokenIds!.filter((_, i) => x.lossMask![i] === 1);
        const first = x.lossMask!.indexOf(1);
        const last = x.lossMask!.lastIndexOf(1);
        expect(x.lossMask!.slice(first, last + 1).every((m) => m === 1)).toBe(true);
        expect(x.action).toBe(renderer.assistantText(own).replace(/\u0000/g, '\uFFFD'));
        expect(x.logprobs!.slice(first, last + 1).every((l) => l < 0)).toBe(true);
        const rest = renderer.tokenizer.decode(x.tokenIds!.slice(last + 1));
        if (rest) expect(rest).toMatch(/^\n<\|tool\|> [a-z_]+\n[\s\S]*<\|assistant\|>\n$/);
        if (own.at(-1) !== eos) expect(own.length).toBe(40); // cut at agentMaxNewTokens, else ended by EOS
        expect(Array.isArray(x.toolCalls)).toBe(true);
        expect(typeof x.workspaceDiff).toBe('string');
        expect(x.observation).toBeTruthy();
        policyTokens += own.length;
      }
    }
    expect(policyTokens).toBeGreaterThan(0);

    // the learner trained one sequence per scored episode (the turns concatenated), not one per turn,
    // on exactly the stored tokens: its recomputed logprobs match the sampler's
    const m = await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id));
    const metric = (name: string) => m.filter((x) => x.name === name).map((x) => x.value);
    console.log(
      `trained_sequences ${metric('trained_sequences')} logprob_mismatch ${metric('logprob_mismatch')} heldout ${metric('heldout_pass_at_1')} reward ${metric('reward_mean')}`,
    );
    expect(metric('trained_sequences')).toEqual([scored.length]);
    expect(scored.some(({ e }) => e.turnsCount > 1)).toBe(true);
    expect(Math.max(...metric('logprob_mismatch'))).toBeLessThan(1e-3);
    expect(metric('heldout_pass_at_1')).toHaveLength(2);
    const [v1] = await db
      .select()
      .from(policyVersions)
      .where(and(eq(policyVersions.runId, run.id), eq(policyVersions.version, 1)));
    expect(v1?.sha256).toBeTruthy();
    agentRunId = run.id;
  }, 200_000);

  it("exports the run's episodes: JSONL that Python's json reads, Parquet that another library reads, tokens exactly the stored ones", async () => {
    expect(agentRunId).toBeTruthy();
    const all: ExportedEpisode[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page: { items: ExportedEpisode[]; next: number | null } = await exportEpisodes(db, { runId: agentRunId!, offset, limit: 1 });
      all.push(...page.items);
      offset = page.next;
    }
    const scored = await db
      .select()
      .from(episodes)
      .where(and(eq(episodes.runId, agentRunId!), eq(episodes.status, 'scored')));
    expect(all.map((e) => e.id).sort()).toEqual(scored.map((e) => e.id).sort());
    for (const e of all) {
      const rows = await db.select().from(turns).where(eq(turns.episodeId, e.id)).orderBy(asc(turns.index));
      expect(e.tokens.ids).toEqual(rows.flatMap((r) => r.tokenIds ?? []));
      expect(e.tokens.loss_mask).toEqual(rows.flatMap((r) => r.lossMask ?? []));
      expect(e.messages.slice(0, 2).map((m) => m.role)).toEqual(['system', 'user']);
      expect(e.messages[0]!.content).toBe(SYSTEM); // the run's system prompt, as the agent was given it
      expect(e.messages.filter((m) => m.role === 'assistant')).toHaveLength(rows.length);
      expect(e).toMatchObject({ run_id: agentRunId, status: 'scored', harness_version: expect.stringContaining(REPO_GRADER_VERSION) });
      expect(typeof e.reward).toBe('number');
    }
    // a reward floor above every reward leaves nothing; a status filter picks its own
    expect((await exportEpisodes(db, { runId: agentRunId!, minReward: 2 })).items).toEqual([]);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
    try {
      const jsonl = path.join(dir, 'episodes.jsonl');
      fs.writeFileSync(jsonl, all.map((e) => JSON.stringify(e)).join('\n') + '\n');
      const py = execFileSync(
        'python3',
        [
          '-c',
          'import json,sys\nrows=[json.loads(l) for l in open(sys.argv[1])]\nprint(len(rows), sum(len(r["tokens"]["ids"]) for r in rows), rows[0]["messages"][1]["role"])',
          jsonl,
        ],
        { encoding: 'utf8' },
      );
      expect(py.trim()).toBe(`${all.length} ${all.reduce((n, e) => n + e.tokens.ids.length, 0)} user`);

      const file = path.join(dir, 'episodes.parquet');
      fs.writeFileSync(file, new Uint8Array(episodesParquet(all)));
      const reader = await ParquetReader.openFile(file);
      try {
        const cursor = reader.getCursor();
        const read: Record<string, unknown>[] = [];
        for (let r = await cursor.next(); r; r = await cursor.next()) read.push(r as Record<string, unknown>);
        expect(read.map((r) => String(r.id))).toEqual(all.map((e) => e.id));
        const asJson = (v: unknown) => JSON.parse(Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : JSON.stringify(v)) as unknown;
        expect(asJson(read[0]!.tokens)).toEqual(all[0]!.tokens);
        expect(asJson(read[0]!.messages)).toEqual(all[0]!.messages);
        expect(Number(read[0]!.reward)).toBe(all[0]!.reward);
      } finally {
        await reader.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a token budget the prompt alone fills fails the run, saying what to raise, instead of scoring empty episodes 0', async () => {
    const run = await createRun(
      db,
      { name: 'no-room', config: { seed: 4, suite: 'repo-suite', trainTasks: TRAIN, iterations: 1, agentTokenBudget: 1024 } },
      'test',
    );
    const done = await untilRun(db, run.id, 'the run to fail', (r) => r.status === 'failed' || r.status === 'completed', 60_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(
      /prompt \(system text, 5 tool schemas, problem statement, layout and test command\) is \d+ tokens, the episode's token budget 1024; raise agentTokenBudget/,
    );
    expect(await db.select().from(rewards).innerJoin(episodes, eq(episodes.id, rewards.episodeId)).where(eq(episodes.runId, run.id))).toHaveLength(0);
  }, 90_000);
});
