import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { Db } from '@/db/client';
import { runs } from '@/db/schema';
import { RL_ITERATION_METRICS } from '@/core/metrics';
import { defaultRunConfig } from '@/core/run-config';
import { childEnv, settings } from '@/core/settings';
import { freePort } from '@/scripts/free-port';

/**
 * The browser half of `npm run bench -- console`: a live run page and an 8-run compare page in
 * headless Chromium, against one or two builds of the console serving the same database under
 * the same CPU load, measured in turn.
 *
 * - "ours" is this checkout's production build (`npm start`'s `.next`); `--baseline DIR` adds
 *   another checkout's build (e.g. `git worktree add DIR <rev>` then `next build` there), so
 *   before and after are measured side by side, alternating, in one run.
 * - A ticker adds one iteration to the live run (every RL iteration metric, an event, the
 *   run's counters) every `tickMs`, as a run training fast would.
 * - `load` busy-loop processes keep the CPUs loaded while a page is measured, for both builds.
 * - Per page: Chrome's own counters (CDP `Performance.getMetrics`: TaskDuration is main-thread
 *   busy time) over `seconds` once the first chart is drawn, as busy seconds per minute;
 *   the time from the metrics response's last byte to the first chart line in the DOM; and the
 *   layout shift summed over the window (PerformanceObserver `layout-shift`).
 */

export type PageBenchOptions = {
  seconds: number;
  reps: number;
  load: number;
  tickMs: number;
  baseline?: string;
  /** which pages to measure (both by default) */
  pages?: ('run' | 'compare')[];
  log: (s: string) => void;
};

export type PageMeasure = {
  build: string;
  page: 'run' | 'compare';
  rep: number;
  /** main-thread busy seconds per minute of wall time (TaskDuration) */
  busyPerMin: number;
  scriptPerMin: number;
  layoutPerMin: number;
  recalcStylePerMin: number;
  /** from the metrics response's end to the first chart line drawn, ms (null: never drawn) */
  firstChartMs: number | null;
  /** from navigation start to the first chart line, ms */
  firstChartFromNavMs: number | null;
  layoutShift: number;
  /** chart panels whose SVG was in the DOM at the end */
  panelsDrawn: number;
  panels: number;
};

/** One live run (running, `iterations` done so far) with a control arm; returns the run's id. */
export async function seedLiveRun(db: Db, suiteId: string, iterations: number): Promise<{ live: string; control: string }> {
  const config = { ...defaultRunConfig, iterations: iterations * 10, groupSize: 8, tasksPerIteration: 4 };
  const mk = async (name: string, controlOf: string | null) => {
    const [run] = await db
      .insert(runs)
      .values({
        name,
        config: controlOf ? { ...config, learningRate: 0 } : config,
        suiteId,
        status: 'running',
        currentIteration: iterations,
        episodesTotal: config.iterations * 32,
        episodesDone: iterations * 32,
        startedAt: new Date(Date.now() - iterations * 60_000),
        controlOf,
      })
      .returning();
    return run!.id;
  };
  const live = await mk('live run', null);
  const control = await mk('live run (control)', live);
  for (let s = 1; s <= iterations; s++) await addIteration(db, [live, control], s, new Date(Date.now() - (iterations - s) * 60_000));
  return { live, control };
}

/** One iteration of every RL metric, an event and the counters, as the RL loop commits them. */
export async function addIteration(db: Db, ids: string[], step: number, at = new Date()) {
  const names = sql.join(
    RL_ITERATION_METRICS.map((n, i) => sql`(${n}, ${i + 1}::int)`),
    sql`, `,
  );
  for (const id of ids) {
    await db.execute(sql`
      insert into metric_samples (run_id, source, name, step, value, at)
      select ${id}::uuid, 'rl', n.name, ${step}::int, 0.5 + 0.3 * sin(${step}::int * n.k * 0.1) + 0.1 * random(), ${at.toISOString()}::timestamptz
      from (values ${names}) n(name, k)`);
    await db.execute(sql`
      insert into run_events (run_id, type, actor, message, data, at)
      values (${id}::uuid, 'iteration', 'system:rl', ${`iteration ${step}: trained`}, ${JSON.stringify({ iteration: step })}::jsonb, ${at.toISOString()}::timestamptz)`);
    await db.execute(sql`update runs set current_iteration = ${step}, episodes_done = ${step * 32}, updated_at = now() where id = ${id}::uuid`);
  }
}

/** `node scripts/web-server.mjs` of checkout `root` (its own `.next`), on the bench's data dir. */
async function startWeb(root: string, dataDir: string): Promise<{ url: string; proc: ChildProcess; stop: () => Promise<void> }> {
  if (!fs.existsSync(path.join(root, '.next', 'BUILD_ID')))
    throw new Error(`${root} has no production build (.next/BUILD_ID): run \`npx next build\` there first`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, ['scripts/web-server.mjs', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: root,
    env: childEnv({ CRUCIBLE_DATA_DIR: dataDir, DATABASE_URL: undefined, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4096)));
  for (let i = 0; i < 240; i++) {
    if (proc.exitCode !== null) throw new Error(`the web server of ${root} exited (${proc.exitCode}): ${err}`);
    try {
      const res = await fetch(`${url}/login`, { signal: AbortSignal.timeout(5_000) });
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
      setTimeout(() => proc.kill('SIGKILL'), 10_000).unref();
    });
  return { url, proc, stop };
}

/** Busy loops that keep `n` CPUs loaded (a loaded host, the same for every build measured). */
function startLoad(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

// Runs in the page before any of its scripts: the first chart line drawn, and layout shifts.
const probe = () => {
  const w = window as unknown as { __bench: { firstChart: number | null; shift: number } };
  w.__bench = { firstChart: null, shift: 0 };
  new MutationObserver((_, obs) => {
    if (document.querySelector('.recharts-line-curve')) {
      w.__bench.firstChart = performance.now();
      obs.disconnect();
    }
  }).observe(document, { subtree: true, childList: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__bench.shift += (e as unknown as { value: number }).value;
  }).observe({ type: 'layout-shift', buffered: true });
};

async function measure(browser: Browser, base: string, url: string, login: { username: string; password: string }, seconds: number) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page: Page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Username').fill(login.username);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('current-user').waitFor({ timeout: 120_000 });
    await context.addInitScript(probe);
    await page.goto(`${base}${url}`);
    await page.waitForFunction(() => (window as unknown as { __bench: { firstChart: number | null } }).__bench.firstChart !== null, null, { timeout: 180_000 });
    const first = await page.evaluate(() => {
      const b = (window as unknown as { __bench: { firstChart: number } }).__bench;
      const data = performance.getEntriesByType('resource').find((e) => e.name.includes('runs.compare')) as PerformanceResourceTiming | undefined;
      return { chart: b.firstChart, dataEnd: data?.responseEnd ?? null };
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const read = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return Object.fromEntries(metrics.map((m) => [m.name, m.value])) as Record<string, number>;
    };
    await page.evaluate(() => ((window as unknown as { __bench: { shift: number } }).__bench.shift = 0));
    // CRUCIBLE_BENCH_CPU_PROFILE=DIR: also a V8 CPU profile of the window, for chrome://inspect or a summary
    const profileDir = settings().CRUCIBLE_BENCH_CPU_PROFILE;
    if (profileDir) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const a = await read();
    // The window is counted in wall time between the two readings (Timestamp, seconds).
    await page.waitForTimeout(seconds * 1000);
    const b = await read();
    if (profileDir) {
      const { profile } = await cdp.send('Profiler.stop');
      fs.mkdirSync(profileDir, { recursive: true });
      fs.writeFileSync(path.join(profileDir, `${new URL(base).port}-${url.split('?')[0]!.replace(/\W+/g, '_')}.cpuprofile`), JSON.stringify(profile));
    }
    const shift = await page.evaluate(() => (window as unknown as { __bench: { shift: number } }).__bench.shift);
    const panels = await page.getByTestId('metric-chart').count();
    const panelsDrawn = await page.locator('[data-testid="metric-chart"]:has(svg.recharts-surface)').count();
    const wall = b.Timestamp! - a.Timestamp!;
    const perMin = (k: string) => ((b[k]! - a[k]!) / wall) * 60;
    return {
      busyPerMin: perMin('TaskDuration'),
      scriptPerMin: perMin('ScriptDuration'),
      layoutPerMin: perMin('LayoutDuration'),
      recalcStylePerMin: perMin('RecalcStyleDuration'),
      firstChartMs: first.dataEnd === null ? null : first.chart - first.dataEnd,
      firstChartFromNavMs: first.chart,
      layoutShift: shift,
      panels,
      panelsDrawn,
    };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Measure the live run page and the compare page of each build. `db` is the bench's database,
 * `dataDir` the data directory whose runtime.json names it (the web servers connect through it).
 */
export async function benchPages(
  db: Db,
  dataDir: string,
  targets: { live: string; control: string; compare: string[] },
  login: { username: string; password: string },
  opts: PageBenchOptions,
): Promise<PageMeasure[]> {
  const root = path.resolve(import.meta.dirname, '..');
  const builds: { name: string; root: string }[] = [{ name: 'ours', root }];
  if (opts.baseline) builds.push({ name: `baseline (${path.basename(path.resolve(opts.baseline))})`, root: path.resolve(opts.baseline) });
  const servers = await Promise.all(builds.map(async (b) => ({ ...b, ...(await startWeb(b.root, dataDir)) })));
  const browser = await chromium.launch({
    executablePath: fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const [row] = await db.execute<{ step: number }>(sql`select current_iteration as step from runs where id = ${targets.live}::uuid`);
  let step = row!.step;
  let ticking = Promise.resolve();
  const ticker = setInterval(() => {
    ticking = ticking.then(() => addIteration(db, [targets.live, targets.control], ++step)).catch((e) => opts.log(`ticker: ${(e as Error).message}`));
  }, opts.tickMs);
  const load = startLoad(opts.load);
  const out: PageMeasure[] = [];
  try {
    const pages = [
      { page: 'run' as const, url: `/runs/${targets.live}` },
      { page: 'compare' as const, url: `/runs/compare?ids=${targets.compare.join(',')}` },
    ].filter((p) => !opts.pages || opts.pages.includes(p.page));
    for (let rep = 0; rep < opts.reps; rep++) {
      // alternate which build goes first, so a drift in load favours neither
      const order = rep % 2 === 0 ? servers : [...servers].reverse();
      for (const p of pages) {
        for (const s of order) {
          opts.log(`  rep ${rep + 1}/${opts.reps}: ${s.name} ${p.page} page, ${opts.seconds} s…`);
          const m = await measure(browser, s.url, p.url, login, opts.seconds);
          out.push({ build: s.name, page: p.page, rep, ...m });
        }
      }
    }
  } finally {
    clearInterval(ticker);
    await ticking;
    for (const l of load) l.kill('SIGKILL');
    await browser.close();
    await Promise.all(servers.map((s) => s.stop()));
  }
  return out;
}

/** The markdown table of medians per (page, build), and the ratio of ours to the baseline. */
export function pageTable(ms: PageMeasure[]): string {
  const lines = [
    '| page | build | main-thread busy s/min | script s/min | layout + style s/min | first chart after data | first chart after navigation | layout shift | panels drawn |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const fmt = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '—');
  for (const page of ['run', 'compare'] as const) {
    const builds = [...new Set(ms.filter((m) => m.page === page).map((m) => m.build))];
    const med = (b: string, f: (m: PageMeasure) => number | null) => median(ms.filter((m) => m.page === page && m.build === b).map((m) => f(m) ?? NaN));
    for (const b of builds) {
      const panels = ms.find((m) => m.page === page && m.build === b)!;
      lines.push(
        `| ${page} | ${b} | ${fmt(med(b, (m) => m.busyPerMin))} | ${fmt(med(b, (m) => m.scriptPerMin))} | ${fmt(med(b, (m) => m.layoutPerMin + m.recalcStylePerMin))} | ${fmt(
          med(b, (m) => m.firstChartMs),
          0,
        )} ms | ${fmt(
          med(b, (m) => m.firstChartFromNavMs),
          0,
        )} ms | ${fmt(
          med(b, (m) => m.layoutShift),
          3,
        )} | ${panels.panelsDrawn} / ${panels.panels} |`,
      );
    }
    if (builds.length === 2) {
      const r = med(builds[0]!, (m) => m.busyPerMin) / med(builds[1]!, (m) => m.busyPerMin);
      lines.push(`| ${page} | ours / baseline | ${fmt(r)}× | | | | | | |`);
    }
  }
  return lines.join('\n');
}
