import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import superjson from 'superjson';
import { z } from 'zod';
import type { Db } from '@/db/client';
import postgres from 'postgres';
import { openDatabase } from '@/db/open-database';
import { withDatabase } from '@/db/embedded';
import { runs, taskSuites, tasks } from '@/db/schema';
import { COMPARE_MAX_RUNS, RL_ITERATION_METRICS } from '@/core/metrics';
import { defaultRunConfig } from '@/core/run-config';
import { createCaller } from '@/server/routers';
import { RUN_EVENTS_MAX_PAGE } from '@/server/runs/run-events';
import { createUser } from '@/server/users/service';
import { chartView } from '@/components/runs/charts/chart-view';
import { compareCharts, palette, runCharts, type SectionView } from '@/components/runs/metric-groups';
import { buildNeeded, buildNext } from '@/scripts/next-build';
import { benchPages, pageTable, seedLiveRun } from './console-page';

/**
 * `npm run bench -- console [--iterations 500] [--episodes 50000] [--reps 7] [--no-stats] [--json]
 *   [--no-browser] [--seconds 60] [--page-reps 2] [--load 2] [--tick-ms 30000] [--baseline DIR] [--pages run,compare]`
 *
 * What `/runs/[id]` and `/runs/compare` cost on a long run. A throwaway embedded PostgreSQL
 * gets one run of `iterations` iterations (every RL iteration metric, a labelled metric and
 * pass@k, one event per iteration) with `episodes` scored episodes, plus 7 more runs with the
 * same metrics for a comparison of COMPARE_MAX_RUNS runs (seeded with generate_series). Then,
 * medians over `reps`: the tRPC procedures the two pages call (in-process caller as an
 * operator, same middleware as HTTP; timed with serialising the result, superjson then JSON
 * text, as the HTTP handler does), the payload size, and the
 * browser's layout work for the charts (runCharts/compareCharts + chartView per panel, pure
 * TS run here in Node) — downsampled (ours) against every sample (the previous read).
 * The pages themselves are client components: their server render is a loading shell, so it
 * is not measured; their work in the browser is, by the second half (bench/console-page.ts,
 * left out with --no-browser): a live run page and the 8-run compare page in Chromium, this
 * build against `--baseline DIR`'s (another checkout with its own `next build`), same load.
 */

const optionsSchema = z.object({
  iterations: z.number().int().min(10).max(100_000),
  episodes: z.number().int().min(0).max(5_000_000),
  reps: z.number().int().min(1).max(100),
  json: z.boolean(),
  stats: z.boolean(),
  browser: z.boolean(),
  seconds: z.number().int().min(5).max(3600),
  pageReps: z.number().int().min(1).max(20),
  load: z.number().int().min(0).max(64),
  tickMs: z.number().int().min(500).max(600_000),
  baseline: z.string().min(1).optional(),
  pages: z.array(z.enum(['run', 'compare'])).min(1),
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function timed<T>(reps: number, f: () => Promise<T>): Promise<{ ms: number; last: T }> {
  const times: number[] = [];
  let last!: T;
  await f(); // warm: plans, connections
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    last = await f();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), last };
}

/** Seed the runs; returns their ids, the first being the long run with episodes. */
export async function seed(db: Db, iterations: number, episodes: number): Promise<string[]> {
  const [suite] = await db.insert(taskSuites).values({ name: 'bench-console' }).returning();
  const taskRows = await db
    .insert(tasks)
    .values(
      Array.from({ length: 20 }, (_, i) => ({
        suiteId: suite!.id,
        externalId: `t${i}`,
        language: 'python' as const,
        prompt: `def f${i}(x):\n`,
        entryPoint: `f${i}`,
        tests: { kind: 'io', cases: [{ input: [1], expected: 2 }] },
      })),
    )
    .returning();
  const perIteration = Math.max(1, Math.ceil(episodes / iterations));
  const config = { ...defaultRunConfig, iterations, groupSize: 10, tasksPerIteration: Math.max(1, Math.ceil(perIteration / 10)) };
  const ids: string[] = [];
  for (let r = 0; r < COMPARE_MAX_RUNS; r++) {
    const [run] = await db
      .insert(runs)
      .values({
        name: r === 0 ? 'long run' : `long run ${r}`,
        config: { ...config, learningRate: config.learningRate * (1 + r / 10) },
        suiteId: suite!.id,
        status: 'completed',
        currentIteration: iterations,
        episodesTotal: iterations * config.groupSize * config.tasksPerIteration,
        episodesDone: r === 0 ? episodes : 0,
        startedAt: new Date(Date.now() - iterations * 60_000),
      })
      .returning();
    ids.push(run!.id);
    const names = sql.join(
      RL_ITERATION_METRICS.map((n, i) => sql`(${n}, ${i + 1}::int)`),
      sql`, `,
    );
    // every iteration metric at every step, noisy, with a spike now and then
    await db.execute(sql`
      insert into metric_samples (run_id, source, name, step, value, at)
      select ${run!.id}::uuid, 'rl', n.name, g.s,
        case when g.s % 97 = n.k then 10 else 0.5 + 0.3 * sin(g.s * n.k * 0.1) + 0.1 * random() end,
        now() - (${iterations}::int - g.s) * interval '1 minute'
      from generate_series(1, ${iterations}::int) g(s), (values ${names}) n(name, k)`);
    await db.execute(sql`
      insert into metric_samples (run_id, source, name, step, value, labels, at)
      select ${run!.id}::uuid, 'rl', 'sandbox_failures', g.s, floor(random() * 3), jsonb_build_object('status', st), now() - (${iterations}::int - g.s) * interval '1 minute'
      from generate_series(1, ${iterations}::int) g(s), unnest(array['sandbox_error', 'env_mismatch']) st`);
    await db.execute(sql`
      insert into metric_samples (run_id, source, name, step, value, labels, at)
      select ${run!.id}::uuid, 'rl', 'heldout_pass_at_k', g.s, random(), '{"k":"8"}'::jsonb, now() - (${iterations}::int - g.s) * interval '1 minute'
      from generate_series(0, ${iterations}::int, 10) g(s)`);
  }
  const long = ids[0]!;
  await db.execute(sql`
    insert into run_events (run_id, type, actor, message, data, at)
    select ${long}::uuid, 'iteration', 'system:rl', 'iteration ' || g.s || ': trained', jsonb_build_object('iteration', g.s), now() - (${iterations}::int - g.s) * interval '1 minute'
    from generate_series(1, ${iterations}::int) g(s)`);
  // episodes: iteration, group, sample from the running number; every one scored
  const taskIds = sql.raw(`array[${taskRows.map((t) => `'${t.id}'::uuid`).join(',')}]`);
  await db.execute(sql`
    insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, started_at, finished_at)
    select ${long}::uuid, (${taskIds})[1 + (g.i / ${config.groupSize}) % ${taskRows.length}],
      g.i / ${perIteration}, (g.i % ${perIteration}) / ${config.groupSize}, g.i % ${config.groupSize},
      'scored', 'bwrap', 'sha256:bench', 2, now() - interval '1 hour', now() - interval '1 hour' + interval '3 seconds'
    from generate_series(0, ${episodes - 1}) g(i)`);
  await db.execute(sql`
    insert into rewards (episode_id, value, components, env_hash, harness_version)
    select e.id, random(), '{"passRate": 0.5}'::jsonb, 'sha256:bench', 'bench' from episodes e where e.run_id = ${long}::uuid`);
  return ids;
}

const layoutMs = (sections: SectionView[], smoothing: number) => {
  const t0 = performance.now();
  for (const c of sections.flatMap((s) => s.charts)) chartView(c, { smoothing, logY: false, x: 'iteration' }, new Set(), {}, palette);
  return performance.now() - t0;
};

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      iterations: { type: 'string', default: '500' },
      episodes: { type: 'string', default: '50000' },
      reps: { type: 'string', default: '7' },
      json: { type: 'boolean', default: false },
      'no-stats': { type: 'boolean', default: false },
      'no-browser': { type: 'boolean', default: false },
      seconds: { type: 'string', default: '60' },
      'page-reps': { type: 'string', default: '2' },
      load: { type: 'string', default: '2' },
      'tick-ms': { type: 'string', default: '30000' },
      baseline: { type: 'string' },
      pages: { type: 'string', default: 'run,compare' },
    },
  });
  const opts = optionsSchema.parse({
    iterations: Number(values.iterations),
    episodes: Number(values.episodes),
    reps: Number(values.reps),
    json: values.json,
    stats: !values['no-stats'],
    browser: !values['no-browser'],
    seconds: Number(values.seconds),
    pageReps: Number(values['page-reps']),
    load: Number(values.load),
    tickMs: Number(values['tick-ms']),
    baseline: values.baseline,
    pages: values.pages.split(',').map((p) => p.trim()),
  });
  const log = (s: string) => !opts.json && console.log(s);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-console-'));
  chmodSync(dir, 0o755); // the embedded Postgres (as root: another user) must traverse it
  const opened = await openDatabase({ appName: 'bench-console', startEmbedded: true, max: 10, dataDir: dir, useDatabaseUrl: false });
  try {
    const { db } = opened.database;
    const t0 = performance.now();
    const ids = await seed(db, opts.iterations, opts.episodes);
    // Planner statistics, as autovacuum gives a deployment. The app role's `analyze` (what this
    // bench ran before) skips every table it does not own, with only a warning, so the plans
    // were made without statistics; the embedded server's superuser analyzes them all.
    // --no-stats leaves them out, as the earlier measurements did.
    if (opts.stats) {
      const admin = postgres(withDatabase(opened.embedded!.url, 'crucible'), { max: 1, onnotice: () => {} });
      try {
        await admin`analyze`;
      } finally {
        await admin.end();
      }
    }
    const [{ n } = { n: 0 }] = await db.execute<{ n: number }>(sql`select count(*)::int as n from metric_samples`);
    log(
      `seeded ${COMPARE_MAX_RUNS} runs × ${opts.iterations} iterations (${n} metric samples), ${opts.episodes} episodes in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const user = await createUser(db, { username: 'bench-operator', password: 'correct horse battery', role: 'operator' }, 'bench');
    const caller = createCaller({ db, user: { id: user.id, username: 'bench-operator', role: 'operator', displayName: null, via: 'session' } });
    const long = ids[0]!;
    const pageSize = 20;
    const lastPage = Math.max(1, Math.ceil(opts.episodes / pageSize));
    const size = (x: unknown) => JSON.stringify(superjson.serialize(x)).length;

    type Row = { procedure: string; ours_ms: number; old_ms: number | null; ours_kb: number; old_kb: number | null; note?: string };
    const rows: Row[] = [];
    // each call timed with its serialisation (superjson, then JSON text), as the HTTP handler sends it
    const sent = (f: () => Promise<unknown>) => async () => {
      const r = await f();
      JSON.stringify(superjson.serialize(r));
      return r;
    };
    const pair = async (procedure: string, ours: () => Promise<unknown>, old?: () => Promise<unknown>, note?: string) => {
      const a = await timed(opts.reps, sent(ours));
      const b = old ? await timed(opts.reps, sent(old)) : null;
      rows.push({ procedure, ours_ms: a.ms, old_ms: b?.ms ?? null, ours_kb: size(a.last) / 1024, old_kb: b ? size(b.last) / 1024 : null, note });
      return { ours: a.last, old: b?.last };
    };

    // /runs/[id]: what the page asks for on load
    await pair('runs.get', () => caller.runs.get({ id: long }));
    // the newest page (what the timeline loads), against every event at once (before paging)
    await pair(
      'runs.events (newest page)',
      () => caller.runs.events({ id: long }),
      () => caller.runs.events({ id: long, limit: RUN_EVENTS_MAX_PAGE }),
    );
    const page = await pair(
      'runs.compare (run page, 1 run)',
      () => caller.runs.compare({ ids: [long] }),
      () => caller.runs.compare({ ids: [long], full: true }),
    );
    await pair('episodes.list page 1', () => caller.episodes.list({ runId: long, page: 1, pageSize }));
    await pair(`episodes.list page ${lastPage}`, () => caller.episodes.list({ runId: long, page: lastPage, pageSize }));
    await pair('reviews.coverage', () => caller.reviews.coverage({ runIds: [long] }));
    // /runs/compare: two runs, and the most runs it allows
    await pair(
      'runs.compare (2 runs)',
      () => caller.runs.compare({ ids: ids.slice(0, 2) }),
      () => caller.runs.compare({ ids: ids.slice(0, 2), full: true }),
    );
    const cmp = await pair(
      `runs.compare (${ids.length} runs)`,
      () => caller.runs.compare({ ids }),
      () => caller.runs.compare({ ids, full: true }),
    );

    type Cmp = Awaited<ReturnType<typeof caller.runs.compare>>;
    const names = (c: Cmp) => new Set(c.downsampled.map((k) => k.slice(k.indexOf(':') + 1)));
    const layouts = (label: string, build: (c: Cmp) => SectionView[], ours: Cmp, old: Cmp) => {
      for (const smoothing of [0, 0.6]) {
        const a = median(Array.from({ length: opts.reps }, () => layoutMs(build(ours), smoothing) + 0));
        const b = median(Array.from({ length: opts.reps }, () => layoutMs(build(old), smoothing) + 0));
        const buildA = median(Array.from({ length: opts.reps }, () => ((t) => (build(ours), performance.now() - t))(performance.now())));
        const buildB = median(Array.from({ length: opts.reps }, () => ((t) => (build(old), performance.now() - t))(performance.now())));
        rows.push({
          procedure: `${label} chart layout, smoothing ${smoothing}`,
          ours_ms: a + buildA,
          old_ms: b + buildB,
          ours_kb: 0,
          old_kb: null,
          note: 'browser work, run in Node',
        });
      }
    };
    layouts('run page', (c) => runCharts(c.samples, names(c)), page.ours as Cmp, page.old as Cmp);
    layouts('compare', (c) => compareCharts(c.runs, c.samples, names(c)), cmp.ours as Cmp, cmp.old as Cmp);
    const counts = {
      runPage: { ours: (page.ours as Cmp).samples.length, old: (page.old as Cmp).samples.length },
      compare: { ours: (cmp.ours as Cmp).samples.length, old: (cmp.old as Cmp).samples.length },
    };

    let pages: Awaited<ReturnType<typeof benchPages>> = [];
    if (opts.browser) {
      const root = path.resolve(import.meta.dirname, '..');
      const stale = buildNeeded(root);
      if (stale) {
        log(`${stale}: next build`);
        await buildNext(root);
      }
      const [{ suiteId } = { suiteId: '' }] = await db.execute<{ suiteId: string }>(sql`select suite_id as "suiteId" from runs where id = ${long}::uuid`);
      // a run 200 iterations in, with its control arm, gaining an iteration every --tick-ms
      const live = await seedLiveRun(db, suiteId, 200);
      log(
        `browser: live run page and ${COMPARE_MAX_RUNS}-run compare, ${opts.seconds} s each, ${opts.load} busy loops${opts.baseline ? `, against ${opts.baseline}` : ''}`,
      );
      pages = await benchPages(
        db,
        dir,
        { ...live, compare: [live.live, ...ids.slice(0, COMPARE_MAX_RUNS - 1)] },
        { username: 'bench-operator', password: 'correct horse battery' },
        { seconds: opts.seconds, reps: opts.pageReps, load: opts.load, tickMs: opts.tickMs, baseline: opts.baseline, pages: opts.pages, log },
      );
    }

    if (opts.json) console.log(JSON.stringify({ opts, samples: n, counts, rows, pages }, null, 2));
    else {
      log(
        `samples returned: run page ${counts.runPage.ours} (every sample: ${counts.runPage.old}); compare ${counts.compare.ours} (every sample: ${counts.compare.old}; the previous read stopped at 100000)`,
      );
      log(`medians of ${opts.reps}\n`);
      log('| | ours (downsampled) | every sample | ratio | payload ours / every |');
      log('|---|---|---|---|---|');
      for (const r of rows) {
        const ratio = r.old_ms ? `${(r.ours_ms / r.old_ms).toFixed(2)}×` : '';
        const kb = r.ours_kb ? `${r.ours_kb.toFixed(0)} KB${r.old_kb ? ` / ${r.old_kb.toFixed(0)} KB` : ''}` : '';
        log(`| ${r.procedure} | ${r.ours_ms.toFixed(1)} ms | ${r.old_ms === null ? '' : `${r.old_ms.toFixed(1)} ms`} | ${ratio} | ${kb} |`);
      }
      const sumOf = (p: (r: Row) => number | null, names: string[]) =>
        rows.filter((r) => names.some((x) => r.procedure.startsWith(x))).reduce((a, r) => a + (p(r) ?? r.ours_ms), 0);
      const runPage = ['runs.get', 'runs.events', 'runs.compare (run page', 'episodes.list page 1', 'reviews.coverage'];
      log(
        `\nrun page, sum of its reads (sequential): ours ${sumOf((r) => r.ours_ms, runPage).toFixed(0)} ms, every sample ${sumOf((r) => r.old_ms, runPage).toFixed(0)} ms`,
      );
      if (pages.length) log(`\nin the browser, medians of ${opts.pageReps}, ${opts.seconds} s windows, ${opts.load} busy loops:\n\n${pageTable(pages)}`);
    }
    return 0;
  } finally {
    await opened.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
