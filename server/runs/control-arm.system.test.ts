import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TRPCError } from '@trpc/server';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import { auditLog, jobs, runEvents, runs } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import type { Database } from '@/db/client';

const exec = promisify(execFile);
let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'OK';
  } catch (e) {
    return e instanceof TRPCError ? `${e.code}: ${e.message}` : String(e);
  }
};

describe("control arm (a run's learning rate 0 twin)", () => {
  it('is created with the run: same config and seed, learning rate 0, linked both ways, both started', async () => {
    const op = await callerAs(database.db, 'operator');
    const config = { seed: 7, learningRate: 1e-3, groupSize: 4, trainTasks: ['py/add_7', 'js/take_4'] };
    const run = await op.runs.create({ name: 'curriculum', config, controlArm: true });
    expect(run.controlRunId).toBeTruthy();
    const [control] = await database.db.select().from(runs).where(eq(runs.id, run.controlRunId!));
    expect(control!.controlOf).toBe(run.id);
    expect(control!.name).toBe('curriculum (control)');
    expect(control!.status).toBe('queued');
    // identical but for the learning rate
    expect({ ...control!.config, learningRate: 1e-3 }).toEqual(run.config);
    expect(control!.config.learningRate).toBe(0);
    expect(control!.suiteId).toBe(run.suiteId);

    // the run page reads both arms from either side
    const fromMain = await op.runs.get({ id: run.id });
    const fromControl = await op.runs.get({ id: control!.id });
    expect(fromMain.arms).toEqual({
      main: { id: run.id, name: 'curriculum', status: 'queued' },
      control: { id: control!.id, name: 'curriculum (control)', status: 'queued' },
    });
    expect(fromControl.arms).toEqual(fromMain.arms);
    const plain = await op.runs.create({ name: 'alone', config: {} });
    expect((await op.runs.get({ id: plain.id })).arms).toBeNull();

    // both arms are picked up by the RL workers (server/runs/lifecycle.ts enqueues their rl.advance jobs), with an event and audit row each
    const advance = await database.db.select().from(jobs).where(eq(jobs.queue, 'rl.advance'));
    expect(advance.map((j) => j.runId)).toEqual(expect.arrayContaining([run.id, control!.id]));
    const [created] = await database.db
      .select()
      .from(runEvents)
      .where(and(eq(runEvents.runId, control!.id), eq(runEvents.type, 'created')));
    expect(created!.message).toMatch(/control arm \(learning rate 0\) of curriculum/);
    const audits = await database.db.select().from(auditLog).where(eq(auditLog.targetId, control!.id));
    expect(audits.map((a) => [a.action, (a.details as { controlOf?: string }).controlOf])).toEqual([['run.create', run.id]]);
  });

  it('follows its run on pause, resume and cancel, and a clone gets one too', async () => {
    const op = await callerAs(database.db, 'operator');
    const run = await op.runs.create({ name: 'paired', config: { learningRate: 5e-4 }, controlArm: true });
    const status = async (id: string) => (await database.db.select().from(runs).where(eq(runs.id, id)))[0]!.status;
    await op.runs.pause({ id: run.id });
    expect(await status(run.controlRunId!)).toBe('paused');
    await op.runs.resume({ id: run.id });
    expect(await status(run.controlRunId!)).toBe('queued');
    const clone = await op.runs.clone({ id: run.id });
    const cloned = await op.runs.get({ id: clone.id });
    expect(cloned.arms?.control.name).toBe('paired (clone) (control)');
    await op.runs.cancel({ id: run.id });
    expect([await status(run.id), await status(run.controlRunId!)]).toEqual(['cancelled', 'cancelled']);
  });

  it('is refused with a reason: a run that does not learn, a curriculum naming unknown tasks, a viewer', async () => {
    const op = await callerAs(database.db, 'operator');
    expect(await refusal(op.runs.create({ name: 'x', config: { learningRate: 0 }, controlArm: true }))).toMatch(
      /BAD_REQUEST: .*learning rate is already 0; set a learning rate above 0/,
    );
    expect(await refusal(op.runs.create({ name: 'x', config: { trainTasks: ['py/add_7', 'py/nope', 'py/add_2'] } }))).toMatch(
      /BAD_REQUEST: trainTasks: py\/nope, py\/add_2 not in the train split of suite "builtin"; list its ids with `crucible tasks list --suite builtin --split train`/,
    );
    expect(await refusal(op.runs.create({ name: 'x', config: { learningRate: -1 } }))).toMatch(
      /learning rate must be 0 \(no update, a control arm\) or positive/,
    );
    const viewer = await callerAs(database.db, 'viewer');
    expect(await refusal(viewer.runs.create({ name: 'x', config: {}, controlArm: true }))).toMatch(/^FORBIDDEN/);
    // a no-update run on its own is allowed (e.g. to evaluate v0 on the curriculum)
    expect((await op.runs.create({ name: 'v0 only', config: { learningRate: 0 } })).config.learningRate).toBe(0);
  });

  it('the CLI launches one with --control-arm or --set controlArm=true', async () => {
    const crucible = async (args: string[]) => {
      const { stdout } = await exec('node', ['scripts/crucible.mjs', ...args], { env: childEnv({ DATABASE_URL: database.url }), timeout: 60_000 });
      return JSON.parse(stdout) as { id: string; controlRunId: string | null; config: Record<string, unknown> };
    };
    const flag = await crucible(['runs', 'create', '--name', 'cli-paired', '--set', 'learningRate=0.001', '--control-arm', '--json']);
    const set = await crucible(['runs', 'create', '--name', 'cli-set', '--set', 'controlArm=true', '--json']);
    for (const r of [flag, set]) {
      expect(r.controlRunId).toBeTruthy();
      // a launch option, not part of the stored config
      expect(r.config).not.toHaveProperty('controlArm');
      const [control] = await database.db.select().from(runs).where(eq(runs.id, r.controlRunId!));
      expect([control!.controlOf, control!.config.learningRate]).toEqual([r.id, 0]);
    }
  });
});
