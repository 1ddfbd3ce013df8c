import fs from 'node:fs';
import type { Database } from '@/db/client';
import type { Settings } from '@/core/settings';
import { JOBS_CHANNEL, SCHEDULER_CHANNEL } from '@/core/queues';
import { must } from '@/core/must';
import { defaultConfig, parseSchedulerConfig } from './config';
import { livePass, type LiveState, type PassReport } from './live';
import { addInto, zero } from './resources';
import { schedulerSamples, storeSchedulerSamples } from './samples';
import type { SchedulerConfig } from './types';

// The scheduler worker's loop: become the leader (a session advisory lock, so any number of
// schedulers can run for availability and exactly one decides), then pass every `tickMs`
// and whenever a job is enqueued, finished or handed back (LISTEN), at most every `minGapMs`.

/** Advisory lock key of the scheduler leader (any constant distinct from the migrator's). */
export const LEADER_LOCK = 727_275;

export type SchedulerLoopOptions = {
  database: Database;
  config: (state: LiveState) => SchedulerConfig;
  tickMs: number;
  /** Shortest gap between passes when notifications arrive in bursts. */
  minGapMs: number;
  /** How long a standby waits between attempts to become leader. */
  standbyMs: number;
  evictGraceMs: number;
  /** How often the per-tier and per-queue figures are written for /resources. */
  samplesEveryMs: number;
  signal: AbortSignal;
  log: (message: string) => void;
  onPass?: (report: PassReport) => void;
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** The scheduler's settings (core/settings.ts). */
export type SchedulerSettings = Pick<
  Settings,
  | 'CRUCIBLE_SCHEDULER_CONFIG'
  | 'CRUCIBLE_RESERVE_FRACTION'
  | 'CRUCIBLE_SCHEDULER_NODE_LEASE_MS'
  | 'CRUCIBLE_SCHEDULER_NODE_SUSPECT_MS'
  | 'CRUCIBLE_SCHEDULER_MIN_RUN_MS'
>;

/**
 * The configuration: CRUCIBLE_SCHEDULER_CONFIG (inline JSON or a JSON file) through
 * `parseSchedulerConfig`, or else `defaultConfig` over the live nodes' total capacity (three
 * tiers, one cohort), with CRUCIBLE_RESERVE_FRACTION and the timing overrides applied over
 * either when they are set.
 */
export function schedulerConfigFrom(env: SchedulerSettings): (state: LiveState) => SchedulerConfig {
  const overrides: Partial<SchedulerConfig> = {};
  const set = <K extends keyof SchedulerConfig>(k: K, v: SchedulerConfig[K] | undefined) => v !== undefined && (overrides[k] = v);
  set('reserveFraction', env.CRUCIBLE_RESERVE_FRACTION);
  set('leaseMs', env.CRUCIBLE_SCHEDULER_NODE_LEASE_MS);
  set('suspectAfterMs', env.CRUCIBLE_SCHEDULER_NODE_SUSPECT_MS);
  set('minRunTimeMs', env.CRUCIBLE_SCHEDULER_MIN_RUN_MS);
  const raw = env.CRUCIBLE_SCHEDULER_CONFIG?.trim();
  if (raw) {
    const text = raw.startsWith('{') ? raw : fs.readFileSync(raw, 'utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new Error(`CRUCIBLE_SCHEDULER_CONFIG is not valid JSON (${(e as Error).message}); give inline JSON or a path to a JSON file`);
    }
    const fixed = parseSchedulerConfig({ ...(json as object), ...overrides });
    return () => fixed;
  }
  let cached: { key: string; config: SchedulerConfig } | undefined;
  return (state) => {
    const total = zero();
    for (const n of state.nodes) if (state.now - n.heartbeatAt <= (overrides.leaseMs ?? 30_000)) addInto(total, n.capacity);
    const key = JSON.stringify(total);
    if (cached?.key !== key) cached = { key, config: defaultConfig(total, overrides) };
    return cached.config;
  };
}

/** Run until `signal` aborts: standby until leader, then schedule. */
export async function runSchedulerLoop(o: SchedulerLoopOptions): Promise<void> {
  const { sql } = o.database;
  let generation = 0;
  let wake: (() => void) | undefined;
  const bump = () => {
    generation++;
    wake?.();
  };
  const listeners = [await sql.listen(SCHEDULER_CHANNEL, bump, bump), await sql.listen(JOBS_CHANNEL, bump, bump)];
  let lastSamples = 0;
  try {
    while (!o.signal.aborted) {
      const reserved = await sql.reserve();
      try {
        const [lock] = await reserved`select pg_try_advisory_lock(${LEADER_LOCK}) as ok`;
        if (!must(lock, 'a row from `select pg_try_advisory_lock`').ok) {
          await sleep(o.standbyMs, o.signal);
          continue;
        }
        o.log('leader: scheduling');
        while (!o.signal.aborted) {
          const seen = generation;
          const started = Date.now();
          // The lock lives on this connection: if it broke, so did leadership.
          await reserved`select 1`;
          const report = await livePass(o.database.db, o.config, { evictGraceMs: o.evictGraceMs });
          o.onPass?.(report);
          const a = report.applied;
          if (a.admitted || a.preempted || a.requeued || a.forced || a.swept) {
            o.log(
              `pass: admitted ${a.admitted}, preempted ${a.preempted}, requeued ${a.requeued}` +
                (a.forced ? `, taken back ${a.forced}` : '') +
                (a.swept ? `, swept ${a.swept}` : '') +
                ` (${report.state.pending.length} pending, ${report.state.running.length} running on ${report.state.nodes.length} nodes;` +
                ` load ${report.ms.load.toFixed(1)} ms, decide ${report.ms.decide.toFixed(1)} ms, apply ${report.ms.apply.toFixed(1)} ms)`,
            );
          }
          if (Date.now() - lastSamples >= o.samplesEveryMs) {
            lastSamples = Date.now();
            await storeSchedulerSamples(o.database.db, schedulerSamples(report, o.config(report.state))).catch((e) =>
              o.log(`could not store scheduler samples: ${(e as Error).message}`),
            );
          }
          // Something changed during the pass: go again soon; else wait for news or the tick.
          await sleep(Math.max(0, o.minGapMs - (Date.now() - started)), o.signal);
          if (generation === seen) {
            await new Promise<void>((resolve) => {
              const t = setTimeout(done, o.tickMs);
              function done() {
                clearTimeout(t);
                wake = undefined;
                o.signal.removeEventListener('abort', done);
                resolve();
              }
              wake = done;
              o.signal.addEventListener('abort', done, { once: true });
            });
          }
        }
      } catch (e) {
        if (o.signal.aborted) break;
        o.log(`pass failed, retrying: ${(e as Error).message}`);
        await sleep(o.standbyMs, o.signal);
      } finally {
        await reserved`select pg_advisory_unlock_all()`.catch(() => {});
        reserved.release();
      }
    }
  } finally {
    for (const l of listeners) await l.unlisten().catch(() => {});
  }
}
