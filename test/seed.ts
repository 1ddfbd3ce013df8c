import type { Db } from '@/db/client';
import { episodes, rewards, runs, tasks, taskSuites, turns } from '@/db/schema';
import { defaultRunConfig, type RunConfig } from '@/core/run-config';

/** Insert a run with a small suite, for tests of what sits on top of scored episodes. */
export async function seedRun(db: Db, opts: { name?: string; tasks?: number; config?: Partial<RunConfig> } = {}) {
  const [suite] = await db
    .insert(taskSuites)
    .values({ name: `suite-${Math.random().toString(36).slice(2, 8)}` })
    .returning();
  const taskRows = await db
    .insert(tasks)
    .values(
      Array.from({ length: opts.tasks ?? 5 }, (_, i) => ({
        suiteId: suite!.id,
        externalId: `t${i}`,
        language: 'python' as const,
        prompt: `def f${i}(x):\n`,
        entryPoint: `f${i}`,
        tests: { kind: 'io', cases: [{ input: [1], expected: 2 }] },
      })),
    )
    .returning();
  const [run] = await db
    .insert(runs)
    .values({ name: opts.name ?? 'seeded', config: { ...defaultRunConfig, ...opts.config }, suiteId: suite!.id, status: 'running' })
    .returning();
  return { run: run!, tasks: taskRows };
}

let slot = 0;
/** One scored episode with its reward (and optionally turns). */
export async function seedEpisode(
  db: Db,
  runId: string,
  taskId: string,
  reward: number,
  o: { iteration?: number; group?: number; passRate?: number; envHash?: string; actions?: string[] } = {},
) {
  const [ep] = await db
    .insert(episodes)
    .values({
      runId,
      taskId,
      iteration: o.iteration ?? 0,
      groupIndex: o.group ?? 0,
      sampleIndex: slot++,
      status: 'scored',
      envHash: o.envHash ?? 'sha256:base',
      turnsCount: o.actions?.length ?? 1,
      runtime: 'bwrap',
    })
    .returning();
  await db.insert(rewards).values({
    episodeId: ep!.id,
    value: reward,
    components: { passRate: o.passRate ?? reward, testsPassed: 0, testsTotal: 1, style: 1, efficiency: 1 },
    envHash: o.envHash ?? 'sha256:base',
    harnessVersion: 'test',
  });
  const actions = o.actions ?? ['return x + 1'];
  await db.insert(turns).values(actions.map((action, index) => ({ episodeId: ep!.id, index, action, observation: 'ok', exitCode: 0 })));
  return ep!;
}
