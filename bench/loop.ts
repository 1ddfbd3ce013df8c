import { childEnv, parseSettings, settings } from '@/core/settings';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { openDatabase } from '@/db/open-database';
import { episodes, metricSamples, runs, tasks, turns } from '@/db/schema';
import type { TaskTests } from '@/core/tasks';
import type { JobHandler } from '@/workers/jobs/job-handler';
import { sandboxEnv } from '@/lib/sandbox/runtimes/bwrap';
import { ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { components } from '@/workers/rl/reward/score';
import { cpuBudgetMs } from '@/workers/rl/reward/scoring-options';
import { runTests } from '@/workers/rl/reward/harness';
import { sourceFor } from '@/workers/rl/episode';
import { storeDirFor } from '@/lib/sandbox/env/env-store';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * `npm run bench -- loop [--iterations 3] [--tasks 4] [--group 4] [--max-turns 2] [--workers 2]
 *   [--sft-steps 250] [--heldout 4] [--ref-programs 40] [--json]`
 *
 * A short real RL run in this process (embedded Postgres in a temp dir, the rl.* job handlers
 * in a job loop, bwrap sandboxes, the ONNX policy on CPU), then where the time went, per
 * iteration (medians over iterations): policy sampling, sandbox exec, reward scoring, learner
 * update, held-out eval + checkpoint, and what is left (job overhead, commits, idle slots).
 * Side by side, in the same process run: the run's own candidate programs re-executed through
 * the same harness in a sandbox, and by plain `spawn` without one (the floor of the sandbox share).
 */

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

type JobTiming = { queue: string; payload: Record<string, unknown>; start: number; runMs: number; commitMs: number; end: number };

/** Times each job's slow part (`run`) and its commit (the returned effect) without changing what they do. */
function timed(handlers: JobHandler[], out: JobTiming[]): JobHandler[] {
  return handlers.map((h) => ({
    ...h,
    run: async (job, ctx) => {
      const start = performance.now();
      const effect = await h.run(job, ctx);
      const rec: JobTiming = { queue: h.queue, payload: job.payload, start, runMs: performance.now() - start, commitMs: 0, end: performance.now() };
      out.push(rec);
      if (!effect) return effect;
      return async (tx, claimed) => {
        const c0 = performance.now();
        const r = await effect(tx, claimed);
        rec.commitMs += performance.now() - c0;
        rec.end = performance.now();
        return r;
      };
    },
  }));
}

async function waitForRun(db: Db, runId: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const [r] = await db.select().from(runs).where(eq(runs.id, runId));
    if (r && (r.status === 'completed' || r.status === 'failed' || r.status === 'cancelled')) return r;
    if (Date.now() > end)
      throw new Error(
        `the run did not finish within ${timeoutMs / 1000}s (status ${r?.status}, iteration ${r?.currentIteration}); raise --timeout or shrink the run`,
      );
    await new Promise((res) => setTimeout(res, 100));
  }
}

const REWARD_DIR = path.resolve(import.meta.dirname, '../workers/rl/reward');
const RUNNERS = { python: path.join(REWARD_DIR, 'candidate.py'), javascript: path.join(REWARD_DIR, 'candidate.mjs') };

/** The harness's runner on the host, fed the same job on stdin: what the program costs with no sandbox at all. */
function plainRun(job: object, cwd: string): Promise<number> {
  const cmd = ['/usr/bin/python3', '-I', '-S', path.join(REWARD_DIR, 'trusted.py')];
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const c = spawn(cmd[0]!, cmd.slice(1), { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: sandboxEnv({ HOME: cwd }) as unknown as NodeJS.ProcessEnv });
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', reject);
    c.on('close', () => resolve(performance.now() - t0));
    c.stdin.end(JSON.stringify(job));
  });
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      iterations: { type: 'string', default: '3' },
      tasks: { type: 'string', default: '4' },
      group: { type: 'string', default: '4' },
      'max-turns': { type: 'string', default: '2' },
      workers: { type: 'string', default: '2' },
      'sft-steps': { type: 'string', default: '250' },
      heldout: { type: 'string', default: '4' },
      'ref-programs': { type: 'string', default: '40' },
      timeout: { type: 'string', default: '900' },
      seed: { type: 'string', default: '7' },
      json: { type: 'boolean' },
    },
  });
  const int = (k: keyof typeof values) => {
    const n = Number(values[k]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${k} must be a non-negative integer, got ${values[k]}`);
    return n;
  };
  const cfg = {
    iterations: int('iterations'),
    tasksPerIteration: int('tasks'),
    groupSize: int('group'),
    maxTurns: int('max-turns'),
    concurrency: int('workers'),
  };
  const log = (s: string) => !values.json && console.log(s);

  // Everything in a throwaway data dir: its own embedded Postgres, policy checkpoints, sandboxes.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-loop-'));
  chmodSync(dir, 0o755); // embedded Postgres (as root) and sandboxes (as nobody) must traverse it
  const rlEnv = { CRUCIBLE_RL_SFT_STEPS: String(int('sft-steps')), CRUCIBLE_RL_HELDOUT_LIMIT: String(int('heldout')) };
  const opened = await openDatabase({ appName: 'bench-loop', startEmbedded: true, max: 10, dataDir: dir, useDatabaseUrl: false });
  const { db, sql } = opened.database;
  const { createRlHandlers } = await import('@/workers/rl/handlers');
  const rlHandlers = createRlHandlers(parseSettings(childEnv(rlEnv)), { dataDir: dir });
  const { runJobLoop } = await import('@/workers/jobs/job-loop');
  const { createRun } = await import('@/server/runs/service');
  const ac = new AbortController();
  const timings: JobTiming[] = [];
  const handlers = timed(rlHandlers, timings);
  let loop: Promise<void> | undefined;
  const refManager = new SandboxManager({
    dataDir: dir,
    storeDir: storeDirFor(dir, settings().CRUCIBLE_ENV_STORE),
    runtime: runtimeOptions(settings()),
    capacity: { cpus: 64, memoryMb: 1 << 20, diskMb: 1 << 20 },
  });
  try {
    ensureDefaultEnvironment(storeDirFor(dir, settings().CRUCIBLE_ENV_STORE)); // where this instance's pool looks
    loop = runJobLoop({
      db,
      sql,
      workerId: 'bench-loop',
      handlers,
      concurrency: cfg.concurrency,
      pollMs: 100,
      drainMs: 1000,
      signal: ac.signal,
      log: () => {},
    });
    log(
      `loop bench: ${cfg.iterations} iterations × ${cfg.tasksPerIteration} tasks × group ${cfg.groupSize}, max ${cfg.maxTurns} turns, ${cfg.concurrency} job slots, SFT ${rlEnv.CRUCIBLE_RL_SFT_STEPS} steps, ${rlEnv.CRUCIBLE_RL_HELDOUT_LIMIT} held-out tasks; ${os.availableParallelism()} CPUs`,
    );
    const t0 = performance.now();
    const created = await createRun(db, { name: 'bench-loop', config: { ...cfg, seed: int('seed') } }, 'bench');
    const run = await waitForRun(db, created.id, int('timeout') * 1000);
    const wallS = (performance.now() - t0) / 1000;
    if (run.status !== 'completed') throw new Error(`the bench run ended ${run.status}: ${run.error ?? 'see its run events'}`);

    // ---- where the time went, from what the run stored plus the job timings
    const eps = await db.select().from(episodes).where(eq(episodes.runId, run.id));
    const iterOf = new Map(eps.map((e) => [e.id, e.iteration]));
    const turnRows = await db
      .select({
        episodeId: turns.episodeId,
        action: turns.action,
        policyMs: turns.policyMs,
        sandboxMs: turns.sandboxMs,
        language: tasks.language,
        entryPoint: tasks.entryPoint,
        prompt: tasks.prompt,
        tests: tasks.tests,
      })
      .from(turns)
      .innerJoin(episodes, eq(episodes.id, turns.episodeId))
      .innerJoin(tasks, eq(tasks.id, episodes.taskId))
      .where(eq(episodes.runId, run.id))
      .orderBy(asc(turns.id));
    const metric = await db.select().from(metricSamples).where(eq(metricSamples.runId, run.id));
    const metricAt = (name: string, step: number) => metric.find((m) => m.name === name && m.step === step)?.value ?? NaN;

    // ---- reference, same process: the run's own programs, sandboxed vs plain spawn, interleaved
    const refN = Math.min(int('ref-programs'), turnRows.length);
    const picks = Array.from({ length: refN }, (_, i) => turnRows[Math.floor((i * turnRows.length) / Math.max(1, refN))]!);
    const hostDir = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-loop-host-'));
    const spec = { runtime: run.config.isolation.routine, env: 'default', limits: { cpus: 0.5, memoryMb: 512 } };
    let execMs = 0;
    const exec = refManager.exec.bind(refManager);
    // timing only: how much of scoring is the sandboxed exec (acquire, run, release)
    refManager.exec = async (...a: Parameters<SandboxManager['exec']>) => {
      const e0 = performance.now();
      try {
        return await exec(...a);
      } finally {
        execMs += performance.now() - e0;
      }
    };
    const ref = { sandboxMs: [] as number[], execMs: [] as number[], scoringMs: [] as number[], plainMs: [] as number[], spawnTrueMs: [] as number[] };
    for (let i = 0; i < Math.min(3, picks.length); i++) {
      const p = picks[i]!;
      await runTests(
        refManager,
        spec,
        { language: p.language, entryPoint: p.entryPoint, tests: p.tests as TaskTests },
        sourceFor({ ...p, tests: p.tests as TaskTests }, p.action),
        { testTimeoutMs: 2000 },
      );
    }
    for (const p of picks) {
      const task = { language: p.language, prompt: p.prompt, entryPoint: p.entryPoint, tests: p.tests as TaskTests };
      const source = sourceFor(task, p.action);
      execMs = 0;
      const s0 = performance.now();
      const h = await runTests(refManager, spec, task, source, { testTimeoutMs: 2000 });
      components(h, { cpuBudgetMs: cpuBudgetMs(task.tests) });
      const total = performance.now() - s0;
      ref.sandboxMs.push(total);
      ref.execMs.push(execMs);
      ref.scoringMs.push(total - execMs);
      const io = task.tests.kind === 'io' ? task.tests.cases : null;
      const job = {
        marker: `\u001eCRUCIBLE-${randomBytes(8).toString('hex')} `,
        source,
        language: task.language,
        entryPoint: task.entryPoint,
        testTimeoutMs: 2000,
        mode: io ? 'io' : 'check',
        inputs: io ? io.map((c) => c.input) : [],
        check: task.tests.kind === 'humaneval' ? task.tests.check : undefined,
        prompt: task.prompt,
        runners: RUNNERS,
      };
      ref.plainMs.push(await plainRun(job, hostDir));
      // what a bare process start from this (large) process costs, for reading the floor
      ref.spawnTrueMs.push(
        await new Promise<number>((resolve, reject) => {
          const t = performance.now();
          spawn('/usr/bin/true', [], { stdio: 'ignore' })
            .on('error', reject)
            .on('close', () => resolve(performance.now() - t));
        }),
      );
    }
    rmSync(hostDir, { recursive: true, force: true });
    const refMed = {
      sandboxMs: median(ref.sandboxMs),
      execMs: median(ref.execMs),
      scoringMs: median(ref.scoringMs),
      plainMs: median(ref.plainMs),
      spawnTrueMs: median(ref.spawnTrueMs),
    };

    // ---- per iteration: the window from its first episode job to the end of its learn job
    type IterationTimes = {
      iteration: number;
      windowS: number;
      episodes: number;
      turns: number;
      episodesPerS: number;
      share: Record<string, number>;
      sandboxFloorShare: number;
      sandboxMsPerTurn: number;
      policyMsPerTurn: number;
      /** what the update had to work with: without reward variance GRPO trains on nothing */
      trainedSequences: number;
      zeroVarianceGroupShare: number;
      rewardMean: number;
    };
    const perIteration: IterationTimes[] = [];
    for (let it = 0; it < cfg.iterations; it++) {
      const epJobs = timings.filter((t) => t.queue === 'rl.episode' && iterOf.get(String(t.payload.episodeId)) === it);
      const learn = timings.filter((t) => t.queue === 'rl.learn' && Number(t.payload.iteration) === it && t.commitMs > 0);
      const ts = turnRows.filter((t) => iterOf.get(t.episodeId) === it);
      if (!epJobs.length || !learn.length) continue;
      const windowMs = Math.max(...learn.map((l) => l.end)) - Math.min(...epJobs.map((j) => j.start));
      const slotMs = windowMs * cfg.concurrency;
      const policy = sum(ts.map((t) => t.policyMs ?? 0));
      const sandboxTotal = sum(ts.map((t) => t.sandboxMs ?? 0));
      const scoring = Math.min(sandboxTotal, ts.length * refMed.scoringMs);
      const update = metricAt('update_time_s', it + 1) * 1000;
      const learnRun = sum(learn.map((l) => l.runMs));
      const parts = {
        rollout: policy,
        sandbox: sandboxTotal - scoring,
        scoring,
        update,
        evalAndCheckpoint: Math.max(0, learnRun - update),
        episodeJobOther: Math.max(0, sum(epJobs.map((j) => j.runMs)) - policy - sandboxTotal),
        commits: sum([...epJobs, ...learn].map((j) => j.commitMs)),
      };
      const busy = sum(Object.values(parts));
      const episodesDone = eps.filter((e) => e.iteration === it).length;
      perIteration.push({
        iteration: it,
        windowS: windowMs / 1000,
        episodes: episodesDone,
        turns: ts.length,
        episodesPerS: episodesDone / (windowMs / 1000),
        share: { ...Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v / slotMs])), idle: Math.max(0, 1 - busy / slotMs) },
        // the same programs by plain spawn instead of the sandbox: the floor of the sandbox share
        sandboxFloorShare: (ts.length * refMed.plainMs) / slotMs,
        sandboxMsPerTurn: sandboxTotal / Math.max(1, ts.length),
        policyMsPerTurn: policy / Math.max(1, ts.length),
        trainedSequences: metricAt('trained_sequences', it + 1),
        zeroVarianceGroupShare: metricAt('zero_variance_group_share', it + 1),
        rewardMean: metricAt('reward_mean', it + 1),
      });
    }
    const keys = ['rollout', 'sandbox', 'scoring', 'update', 'evalAndCheckpoint', 'episodeJobOther', 'commits', 'idle'];
    const med = {
      episodesPerS: median(perIteration.map((p) => p.episodesPerS)),
      windowS: median(perIteration.map((p) => p.windowS)),
      share: Object.fromEntries(keys.map((k) => [k, median(perIteration.map((p) => p.share[k]!))])),
      sandboxFloorShare: median(perIteration.map((p) => p.sandboxFloorShare)),
      sandboxMsPerTurn: median(perIteration.map((p) => p.sandboxMsPerTurn)),
      policyMsPerTurn: median(perIteration.map((p) => p.policyMsPerTurn)),
    };
    const start = timings.filter((t) => t.queue === 'rl.advance').reduce((a, t) => a + t.runMs, 0);
    const [load = NaN] = os.loadavg();
    const result = {
      config: {
        ...cfg,
        sftSteps: Number(rlEnv.CRUCIBLE_RL_SFT_STEPS),
        heldout: Number(rlEnv.CRUCIBLE_RL_HELDOUT_LIMIT),
        cpus: os.availableParallelism(),
        loadAverage1m: load,
      },
      run: {
        wallS,
        startS: start / 1000,
        episodes: eps.length,
        turns: turnRows.length,
        episodesPerS: eps.length / wallS,
        rewardMean: metric
          .filter((m) => m.name === 'reward_mean')
          .sort((a, b) => a.step! - b.step!)
          .map((m) => m.value),
      },
      perIteration,
      median: med,
      reference: {
        programs: refN,
        medianMs: refMed,
        sandboxOverPlain: refMed.sandboxMs / refMed.plainMs,
        loopSandboxOverReference: med.sandboxMsPerTurn / refMed.sandboxMs,
        sandboxShareOverFloor: med.share.sandbox! / med.sandboxFloorShare,
      },
    };
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      log(`host load average (1 min) at the end: ${f(load, 1)} on ${os.availableParallelism()} CPUs`);
      log(
        `run: ${result.run.episodes} episodes, ${result.run.turns} turns in ${f(wallS)} s (${f(result.run.episodesPerS, 2)} episodes/s overall; start incl. SFT + baseline eval ${f(result.run.startS)} s)`,
      );
      log(`reward_mean by iteration: ${result.run.rewardMean.map((v) => v.toFixed(3)).join(' → ')}`);
      for (const p of perIteration) {
        log(
          `iteration ${p.iteration}: ${f(p.windowS)} s, ${p.episodes} episodes, ${f(p.episodesPerS, 2)} episodes/s, reward ${f(p.rewardMean, 3)}, ${p.trainedSequences} sequences trained (${pct(p.zeroVarianceGroupShare)} zero-variance groups); ` +
            keys.map((k) => `${k} ${pct(p.share[k]!)}`).join(', '),
        );
      }
      log(`median of ${perIteration.length} iterations (share of ${cfg.concurrency} job slots × iteration wall time):`);
      log(`  episodes/s           ${f(med.episodesPerS, 2)}   (iteration ${f(med.windowS)} s)`);
      log(`  rollout (sampling)   ${pct(med.share.rollout!)}   ${f(med.policyMsPerTurn, 0)} ms/turn`);
      log(
        `  sandbox (exec)       ${pct(med.share.sandbox!)}   floor (plain spawn) ${pct(med.sandboxFloorShare)}  → ${f(result.reference.sandboxShareOverFloor, 2)}× the floor`,
      );
      log(`  reward scoring       ${pct(med.share.scoring!)}`);
      log(`  learner update       ${pct(med.share.update!)}`);
      log(`  held-out eval + ckpt ${pct(med.share.evalAndCheckpoint!)}`);
      log(`  episode job other    ${pct(med.share.episodeJobOther!)}   (policy load, DB reads)`);
      log(`  commits              ${pct(med.share.commits!)}`);
      log(`  idle slots           ${pct(med.share.idle!)}   (learn runs on one slot; queue hand-offs)`);
      log(`reference, same process: ${refN} of the run's programs through the harness`);
      log(
        `  sandboxed ${f(refMed.sandboxMs)} ms (exec ${f(refMed.execMs)} ms, scoring ${f(refMed.scoringMs, 2)} ms)  plain spawn ${f(refMed.plainMs)} ms (bare spawn of true ${f(refMed.spawnTrueMs)} ms)  → sandbox/plain ${f(result.reference.sandboxOverPlain, 2)}×`,
      );
      log(`  in the loop: ${f(med.sandboxMsPerTurn)} ms per turn → ${f(result.reference.loopSandboxOverReference, 2)}× the quiet sandboxed reference`);
    }
    return 0;
  } finally {
    ac.abort();
    await loop?.catch(() => {});
    for (const h of rlHandlers) await h.close?.().catch(() => {});
    await refManager.close().catch(() => {});
    await opened.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
