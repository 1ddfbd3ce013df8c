import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEvents, runs } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { anonymousCaller, callerAs } from '@/test/callers';
import type { Database } from '@/db/client';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'OK';
  } catch (e) {
    return e instanceof TRPCError ? e.code : String(e);
  }
};

describe('runs', () => {
  it('creates a run with defaults filled in, lists, searches and paginates', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'grpo baseline', config: { groupSize: 4 } });
    expect(run.status).toBe('queued');
    expect(run.config.groupSize).toBe(4);
    expect(run.config.quota).toEqual({ cpus: 2, memoryMb: 4096, scratchMb: 51200 });
    expect(run.config.algorithm).toBe('grpo');
    for (let i = 0; i < 5; i++) await op.runs.create({ name: `ppo sweep ${i}`, config: { algorithm: 'ppo' } });
    const all = await op.runs.list({ pageSize: 4 });
    expect(all.total).toBe(6);
    expect(all.items).toHaveLength(4);
    const page2 = await op.runs.list({ pageSize: 4, page: 2 });
    expect(page2.items).toHaveLength(2);
    expect(new Set([...all.items, ...page2.items].map((r) => r.id)).size).toBe(6);
    const found = await op.runs.list({ search: 'SWEEP 3' });
    expect(found.items.map((r) => r.name)).toEqual(['ppo sweep 3']);
    const byPrefix = await op.runs.list({ search: run.id.slice(0, 8) });
    expect(byPrefix.items.map((r) => r.id)).toContain(run.id);
  });

  it('enforces status transitions on the server and records each as an event', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'lifecycle', config: {} });
    expect((await op.runs.pause({ id: run.id })).status).toBe('paused');
    expect(await code(op.runs.pause({ id: run.id }))).toBe('CONFLICT');
    expect((await op.runs.resume({ id: run.id })).status).toBe('queued');
    expect((await op.runs.cancel({ id: run.id })).status).toBe('cancelled');
    await expect(op.runs.resume({ id: run.id })).rejects.toThrow(/cancelled run cannot be resumed/);
    const { items: events } = await op.runs.events({ id: run.id });
    // newest first
    expect(events.map((e) => e.type)).toEqual(['cancel', 'resume', 'pause', 'created']);
    expect(events.map((e) => e.toStatus)).toEqual(['cancelled', 'queued', 'paused', 'queued']);
    const detail = await op.runs.get({ id: run.id });
    expect(detail.allowedActions).toEqual([]);
  });

  it('resume returns a paused running run to running', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'was running', config: {} });
    await database.db.update(runs).set({ status: 'running' }).where(eq(runs.id, run.id));
    await op.runs.pause({ id: run.id });
    expect((await op.runs.resume({ id: run.id })).status).toBe('running');
  });

  it('clones a run with the same config', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'source', config: { learningRate: 1e-4, seed: 7 } });
    await op.runs.cancel({ id: run.id });
    const clone = await op.runs.clone({ id: run.id });
    expect(clone.name).toBe('source (clone)');
    expect(clone.status).toBe('queued');
    expect(clone.config).toEqual(run.config);
    expect(clone.clonedFrom).toBe(run.id);
  });

  it('two racing cancels: exactly one succeeds', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'race', config: {} });
    const results = await Promise.all([code(op.runs.cancel({ id: run.id })), code(op.runs.cancel({ id: run.id }))]);
    expect(results.sort()).toEqual(['CONFLICT', 'OK']);
    const evs = await database.db.select().from(runEvents).where(eq(runEvents.runId, run.id));
    expect(evs.filter((e) => e.type === 'cancel')).toHaveLength(1);
  });

  it('roles: reviewers and viewers cannot launch or change runs; anonymous callers cannot read', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'guarded', config: {} });
    for (const role of ['reviewer', 'viewer'] as const) {
      const c = await callerAs(database.db, role);
      expect(await code(c.runs.create({ name: 'nope', config: {} }))).toBe('FORBIDDEN');
      expect(await code(c.runs.cancel({ id: run.id }))).toBe('FORBIDDEN');
      expect(await code(c.runs.clone({ id: run.id }))).toBe('FORBIDDEN');
      expect((await c.runs.get({ id: run.id })).status).toBe('queued');
    }
    expect(await code(anonymousCaller(database.db).runs.list({}))).toBe('UNAUTHORIZED');
    const admin = await callerAs(database.db, 'admin');
    expect((await admin.runs.pause({ id: run.id })).status).toBe('paused');
  });

  it('unknown suite and unknown run give clear errors', async () => {
    const op = await callerAs(database.db, 'operator');
    await expect(op.runs.create({ name: 'x', config: { suite: 'nope' } })).rejects.toThrow(/task suite "nope" does not exist/);
    expect(await code(op.runs.get({ id: '00000000-0000-4000-8000-000000000000' }))).toBe('NOT_FOUND');
  });
});
