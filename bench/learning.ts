import { childEnv, parseSettings, settings } from '@/core/settings';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { openDatabase } from '@/db/open-database';
import { episodes, runs } from '@/db/schema';
import { ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { EDGE_TASKS, LEARNING_CONFIG, formatReport } from '@/workers/rl/learning-setup';
import { comparePairs, curves, pairedOutcomes } from '@/workers/rl/paired';
import { storeDirFor } from '@/lib/sandbox/env/env-store';

/**
 * `npm run bench -- learning [--minutes 15] [--json] [--lr 5e-4] [--group 8] [--tasks a,b,…|all]
 *   [--tasks-per-iteration N] [--sft-steps 400] [--heldout 0] [--max-turns 1] [--seed 1]`
 *
 * Learning you can see, with a control: a run on the curriculum of the learning test
 * (docs/rl.md, "Learning") launched with a control arm (same config and seed, learning rate
 * 0), both in this process (embedded Postgres in a temp dir, the rl.* job handlers, bwrap
 * sandboxes, the ONNX policy on CPU) for a wall-clock budget. Then per iteration each arm's
 * train reward, solved share and held-out pass@1, and over the iterations both finished the
 * paired gain with its 95% interval and the exact McNemar p-value.
 */

const int = (name: string, raw: string | undefined, min = 0) => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got ${raw}`);
  return n;
};

/** Share of a run's scored episodes per iteration that ended solved. */
async function solvedByIteration(db: Db, runId: string) {
  const rows = await db
    .select({ iteration: episodes.iteration, solved: sql<number>`avg(case when ${episodes.endReason} = 'solved' then 1.0 else 0.0 end)::float8` })
    .from(episodes)
    .where(and(eq(episodes.runId, runId), eq(episodes.status, 'scored')))
    .groupBy(episodes.iteration);
  return new Map(rows.map((r) => [r.iteration, r.solved]));
}

export async function main(argv: string[]): Promise<number> {
  // a registered model's experiment (text tasks) is its own bench: ./text-learning-bench.ts
  if (argv.some((a) => a === '--model' || a.startsWith('--model='))) return (await import('@/bench/text-learning')).main(argv);
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '15' },
      lr: { type: 'string', default: String(LEARNING_CONFIG.learningRate) },
      group: { type: 'string', default: String(LEARNING_CONFIG.groupSize) },
      tasks: { type: 'string', default: EDGE_TASKS.join(',') },
      // with --tasks all: how many of the whole train split each iteration samples
      'tasks-per-iteration': { type: 'string', default: '16' },
      'sft-steps': { type: 'string', default: '400' },
      heldout: { type: 'string', default: '0' },
      'max-turns': { type: 'string', default: String(LEARNING_CONFIG.maxTurns) },
      seed: { type: 'string', default: String(LEARNING_CONFIG.seed) },
      json: { type: 'boolean' },
    },
  });
  const minutes = Number(values.minutes);
  if (!(minutes > 0)) throw new Error(`--minutes must be a positive number, got ${values.minutes}`);
  const learningRate = Number(values.lr);
  if (!(learningRate > 0)) throw new Error(`--lr must be above 0 (the control arm is the lr 0 one), got ${values.lr}`);
  // "all": no curriculum, the whole train split (what the learning test used to run)
  const trainTasks =
    values.tasks === 'all'
      ? []
      : values
          .tasks!.split(',')
          .map((t) => t.trim())
          .filter(Boolean);
  const config = {
    ...LEARNING_CONFIG,
    trainTasks,
    tasksPerIteration: trainTasks.length || int('tasks-per-iteration', values['tasks-per-iteration'], 1),
    groupSize: int('group', values.group, 2),
    maxTurns: int('max-turns', values['max-turns'], 1),
    seed: int('seed', values.seed),
    learningRate,
    iterations: 100_000, // the budget ends the run, not the iteration count
  };
  const log = (s: string) => !values.json && console.log(s);

  // Everything in a throwaway data dir: its own embedded Postgres, checkpoints, sandboxes.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-learning-'));
  chmodSync(dir, 0o755); // embedded Postgres (as root) and sandboxes (as nobody) must traverse it
  const rlEnv = {
    CRUCIBLE_RL_SFT_STEPS: String(int('sft-steps', values['sft-steps'])),
    CRUCIBLE_RL_HELDOUT_LIMIT: String(int('heldout', values.heldout)),
    CRUCIBLE_RL_PASS_K: '0',
  };
  const opened = await openDatabase({ appName: 'bench-learning', startEmbedded: true, max: 10, dataDir: dir, useDatabaseUrl: false });
  const { db, sql: pg } = opened.database;
  const { createRlHandlers } = await import('@/workers/rl/handlers');
  const rlHandlers = createRlHandlers(parseSettings(childEnv(rlEnv)), { dataDir: dir });
  const { runJobLoop } = await import('@/workers/jobs/job-loop');
  const { createRun, transitionRun } = await import('@/server/runs/service');
  const ac = new AbortController();
  let loop: Promise<void> | undefined;
  try {
    ensureDefaultEnvironment(storeDirFor(dir, settings().CRUCIBLE_ENV_STORE)); // where this instance's pool looks
    loop = runJobLoop({
      db,
      sql: pg,
      workerId: 'bench-learning',
      handlers: rlHandlers,
      concurrency: 2,
      pollMs: 100,
      drainMs: 1000,
      signal: ac.signal,
      log: () => {},
    });
    log(
      `learning bench: ${minutes} min; ${trainTasks.length ? `curriculum ${trainTasks.length} tasks` : `whole train split, ${config.tasksPerIteration} tasks an iteration`} × group ${config.groupSize}, ${config.maxTurns} turn(s), lr ${learningRate} vs control lr 0, seed ${config.seed}, SFT ${rlEnv.CRUCIBLE_RL_SFT_STEPS} steps, held-out ${values.heldout === '0' ? 'all' : values.heldout} tasks; ${os.availableParallelism()} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    const t0 = performance.now();
    const run = await createRun(db, { name: 'bench-learning', config, controlArm: true }, 'bench');
    const controlId = run.controlRunId!;
    const status = async (id: string) => (await db.select().from(runs).where(eq(runs.id, id)))[0]!;
    const deadline = t0 + minutes * 60_000;
    let lastLogged = -1;
    while (performance.now() < deadline) {
      const [m, c] = [await status(run.id), await status(controlId)];
      for (const r of [m, c]) if (r.status === 'failed') throw new Error(`run ${r.name} failed: ${r.error}`);
      // The control arm has no learner step, so it would run ahead on iterations the RL arm
      // never reaches within the budget: hold it at the RL arm's iteration.
      if (c.status === 'running' && c.currentIteration > m.currentIteration) await transitionRun(db, controlId, 'pause', 'bench');
      else if (c.status === 'paused' && c.currentIteration <= m.currentIteration) await transitionRun(db, controlId, 'resume', 'bench');
      if (m.currentIteration !== lastLogged) {
        lastLogged = m.currentIteration;
        log(`  ${((performance.now() - t0) / 1000).toFixed(0)} s: RL arm at iteration ${m.currentIteration}, control at ${c.currentIteration}`);
      }
      await new Promise((res) => setTimeout(res, 500));
    }
    // Budget spent: cancel (the control arm follows its main run); finished iterations are kept.
    await transitionRun(db, run.id, 'cancel', 'bench').catch(() => undefined);
    await transitionRun(db, controlId, 'cancel', 'bench').catch(() => undefined);
    const wallS = (performance.now() - t0) / 1000;
    ac.abort();
    await loop;
    loop = undefined;

    const { pairs, iterations, dropped } = await pairedOutcomes(db, run.id, controlId, { fromIteration: 1 });
    if (iterations < 2)
      throw new Error(
        `only ${iterations} iteration(s) finished in both arms within ${minutes} min: nothing to compare after iteration 0; raise --minutes or shrink --group / --tasks`,
      );
    const report = comparePairs(pairs);
    const [mc, cc, ms, cs] = [
      await curves(db, run.id),
      await curves(db, controlId),
      await solvedByIteration(db, run.id),
      await solvedByIteration(db, controlId),
    ];
    const perIteration = Array.from({ length: iterations }, (_, i) => ({
      iteration: i,
      reward: { main: mc.reward.get(i + 1) ?? null, control: cc.reward.get(i + 1) ?? null },
      solved: { main: ms.get(i) ?? null, control: cs.get(i) ?? null },
      // held-out pass@1 of the policy after this iteration's update (step i + 1)
      heldoutPassAt1: { main: mc.heldout.get(i + 1) ?? null, control: cc.heldout.get(i + 1) ?? null },
    }));
    const heldoutV0 = mc.heldout.get(0) ?? null;
    const after = (
      await db
        .select({ n: sql<number>`count(*)::int` })
        .from(episodes)
        .where(and(eq(episodes.runId, run.id), gte(episodes.iteration, iterations)))
    )[0]!.n;
    const result = {
      config: {
        minutes,
        learningRate,
        trainTasks,
        groupSize: config.groupSize,
        maxTurns: config.maxTurns,
        seed: config.seed,
        sftSteps: Number(rlEnv.CRUCIBLE_RL_SFT_STEPS),
        heldout: Number(values.heldout),
        cpus: os.availableParallelism(),
        loadAverage1m: os.loadavg()[0],
      },
      wallS,
      iterationsCompared: iterations,
      droppedPairs: dropped,
      episodesPastLastIteration: after,
      heldout: { v0: heldoutV0, last: { main: perIteration.at(-1)!.heldoutPassAt1.main, control: perIteration.at(-1)!.heldoutPassAt1.control } },
      perIteration,
      paired: report,
    };
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      const f = (x: number | null) => (x == null ? '   -  ' : x.toFixed(3).padStart(6));
      log(`\n${iterations} iterations finished in both arms in ${wallS.toFixed(0)} s; held-out pass@1 of v0 ${f(heldoutV0).trim()}`);
      log('iter  reward RL  ctl    solved RL  ctl    held-out RL  ctl');
      for (const r of perIteration)
        log(
          `${String(r.iteration).padStart(4)}  ${f(r.reward.main)} ${f(r.reward.control)}    ${f(r.solved.main)} ${f(r.solved.control)}    ${f(r.heldoutPassAt1.main)}   ${f(r.heldoutPassAt1.control)}`,
        );
      log(`\npaired over iterations 1–${iterations - 1} (iteration 0 is v0 in both arms), ${dropped} pairs dropped for infra failures:`);
      log(formatReport(report));
    }
    return 0;
  } finally {
    ac.abort();
    await loop?.catch(() => {});
    for (const h of rlHandlers) await h.close?.().catch(() => {});
    await opened.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
