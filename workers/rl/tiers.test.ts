import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodes, rewards } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { builtinSuite } from '@/server/tasks/builtin';
import { saveSuite } from '@/server/tasks/service';
import { installedRuntimes } from '@/lib/sandbox/sandbox.testkit';
import { inProcessRl, TINY_RL_ENV, untilRun } from './rl.testkit';

// Issue 18: the RL loop's episodes on the isolation tiers, each task on its risk tier's runtime.
const [gvisor, microvm] = installedRuntimes(['gvisor', 'microvm']);
const rl = await inProcessRl('tiers', { ...TINY_RL_ENV, CRUCIBLE_RL_HELDOUT_LIMIT: '1' });
const { db } = rl;
const ended = (x: { status: string }) => x.status === 'completed' || x.status === 'failed';

beforeAll(async () => {
  // two python tasks per tier: the same families, one copy marked high risk
  const base = builtinSuite().filter((t) => t.language === 'python' && /^py\/(add|times)_\d+$/.test(t.externalId));
  const train = base.filter((t) => t.split === 'train').slice(0, 2);
  const heldout = base.filter((t) => t.split === 'heldout').slice(0, 1);
  const tasks = [...train, ...train.map((t) => ({ ...t, externalId: `${t.externalId}-high`, risk: 'high' as const })), ...heldout];
  await saveSuite(db, { name: 'tiers', source: 'test: built-in python arithmetic, routine and high risk' }, tasks, 'test');
  rl.start();
});
afterAll(() => rl.stop());

const tiny = { suite: 'tiers', seed: 7, iterations: 1, tasksPerIteration: 4, groupSize: 2, maxTurns: 1, concurrency: 2 };

/** Run a one-iteration run under `isolation`: it completes, every episode is scored, and its episodes ran on exactly `runtimes`. */
async function expectScoredOn(name: string, isolation: { routine: string; high: string }, seed: number, runtimes: string[]) {
  const run = await createRun(db, { name, config: { ...tiny, seed, isolation: isolation as { routine: 'bwrap'; high: 'bwrap' } } }, 'test');
  const r = await untilRun(db, run.id, 'the run to end', ended, 400_000);
  expect(r.error).toBeNull();
  expect(r.status).toBe('completed');
  const eps = await db
    .select({ e: episodes, reward: rewards.id })
    .from(episodes)
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .where(eq(episodes.runId, run.id));
  expect(eps).toHaveLength(8);
  for (const { e, reward } of eps) {
    expect(e.status, `${e.runtime}: ${e.error}`).toBe('scored');
    expect(reward).not.toBeNull();
  }
  expect([...new Set(eps.map(({ e }) => e.runtime))].sort()).toEqual(runtimes);
}

describe.skipIf(!microvm?.available)(`RL episodes on the microVM tier${microvm?.available ? '' : ` (skipped: ${microvm?.reason})`}`, () => {
  it(
    'runs high-risk tasks in microVMs and routine ones in bwrap, records the runtime, and scores every episode',
    () => expectScoredOn('microvm', { routine: 'bwrap', high: 'microvm' }, 7, ['bwrap', 'microvm']),
    420_000,
  );
});

// gVisor 20221219 (Debian 12) has no PR_SET_CHILD_SUBREAPER; the harness's trusted side then
// finds what the candidate left behind as every process of the sandbox's PID namespace but its
// own ancestors (only under Crucible's supervisor as PID 1), and scores as on bwrap.
describe.skipIf(!gvisor?.available)(`RL episodes on the gVisor tier${gvisor?.available ? '' : ` (skipped: ${gvisor?.reason})`}`, () => {
  it(
    'runs routine tasks in gVisor, records the runtime, and scores every episode',
    () => expectScoredOn('gvisor', { routine: 'gvisor', high: 'bwrap' }, 8, ['bwrap', 'gvisor']),
    420_000,
  );
});
