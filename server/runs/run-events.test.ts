import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { runEvents, runs } from '@/db/schema';
import { defaultRunConfig } from '@/core/run-config';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { RUN_EVENTS_MAX_PAGE, RUN_EVENTS_PAGE } from './run-events';

/**
 * runs.events pages a run's events newest first by keyset on (at, id). The seeded events
 * make the easy mistakes visible: three share each timestamp (a page boundary falls inside a
 * tie), timestamps differ by a microsecond (finer than a JS Date), and some were inserted
 * after later-timed ones (id order is not time order).
 */

let database: Database;
let op: Awaited<ReturnType<typeof callerAs>>;
beforeAll(async () => {
  database = await freshDatabase();
  op = await callerAs(database.db, 'operator');
});

const SEEDED = 137;

/** A queued run, inserted directly (runs.create would first import the built-in suite). */
async function queuedRun(name: string) {
  const [run] = await database.db.insert(runs).values({ name, config: defaultRunConfig }).returning();
  return run!;
}

async function seededRun(name: string) {
  const run = await queuedRun(name);
  // k = 0..136: groups of three at the same microsecond, one microsecond apart; every
  // seventh is back-dated by an hour, so it sorts below events with smaller ids.
  await database.sql`
    insert into run_events (run_id, type, actor, message, at)
    select ${run.id}, 'seeded', 'test', 'event ' || k,
      timestamptz '2026-01-01 00:00:00Z' + (k / 3) * interval '1 microsecond' - case when k % 7 = 3 then interval '1 hour' else interval '0' end
    from generate_series(0, ${SEEDED - 1}) k`;
  return run;
}

/** Every event id of the run in the timeline's order, straight from the table. */
async function expectedOrder(runId: string) {
  const rows = await database.sql<{ id: string }[]>`select id from run_events where run_id = ${runId} order by at desc, id desc`;
  return rows.map((r) => Number(r.id));
}

async function walk(runId: string, limit: number) {
  const pages: number[][] = [];
  let cursor: number | null = null;
  do {
    const page: Awaited<ReturnType<typeof op.runs.events>> = await op.runs.events({ id: runId, cursor, limit });
    pages.push(page.items.map((e) => e.id));
    cursor = page.nextCursor;
    expect(pages.length).toBeLessThan(1000); // a cursor that does not advance would loop
  } while (cursor !== null);
  return pages;
}

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'OK';
  } catch (e) {
    return e instanceof TRPCError ? e.code : String(e);
  }
};

describe('runs.events paging', () => {
  it('walks a run newest first in pages that neither overlap nor skip, across ties and sub-millisecond times', async () => {
    const run = await seededRun('paged events');
    const all = await expectedOrder(run.id);
    expect(all).toHaveLength(SEEDED);
    for (const limit of [10, 7, 3, SEEDED, RUN_EVENTS_MAX_PAGE]) {
      const pages = await walk(run.id, limit);
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(pages.at(-1)!.length).toBeGreaterThan(0);
      expect(pages.flat(), `pages of ${limit}`).toEqual(all);
    }
  });

  it('serves the newest page by default, and older pages do not shift when events are appended meanwhile', async () => {
    const run = await seededRun('live events');
    const all = await expectedOrder(run.id);
    const first = await op.runs.events({ id: run.id });
    expect(first.items.map((e) => e.id)).toEqual(all.slice(0, RUN_EVENTS_PAGE));
    expect(first.nextCursor).toBe(all[RUN_EVENTS_PAGE - 1]);
    // the run goes on: a new event is the newest, and the next older page is the same
    await op.runs.pause({ id: run.id });
    const second = await op.runs.events({ id: run.id, cursor: first.nextCursor });
    expect(second.items.map((e) => e.id)).toEqual(all.slice(RUN_EVENTS_PAGE, 2 * RUN_EVENTS_PAGE));
    expect((await op.runs.events({ id: run.id, limit: 1 })).items[0]).toMatchObject({ type: 'pause', toStatus: 'paused' });
  });

  it("gives an empty page for another run's cursor, and none of a run with no events", async () => {
    const a = await seededRun('run a');
    const b = await queuedRun('run b');
    await database.db.insert(runEvents).values({ runId: b.id, type: 'created', message: 'an event of run b' });
    const [ofB] = await expectedOrder(b.id);
    expect(await op.runs.events({ id: a.id, cursor: ofB })).toEqual({ items: [], nextCursor: null });
    expect(await op.runs.events({ id: crypto.randomUUID() })).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a page size out of range and a cursor that is not an event id', async () => {
    const id = crypto.randomUUID();
    expect(await code(op.runs.events({ id, limit: 0 }))).toBe('BAD_REQUEST');
    expect(await code(op.runs.events({ id, limit: RUN_EVENTS_MAX_PAGE + 1 }))).toBe('BAD_REQUEST');
    expect(await code(op.runs.events({ id, limit: 2.5 }))).toBe('BAD_REQUEST');
    expect(await code(op.runs.events({ id, cursor: 0 }))).toBe('BAD_REQUEST');
    expect(await code(op.runs.events({ id, cursor: 'x' as unknown as number }))).toBe('BAD_REQUEST');
    expect(await code(op.runs.events({ id: 'not-a-run' }))).toBe('BAD_REQUEST');
  });
});
