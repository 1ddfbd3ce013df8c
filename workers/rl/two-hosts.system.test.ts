import { existsSync, openSync, readdirSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { episodes, policyVersions, rewards } from '@/db/schema';
import { createRun } from '@/server/runs/service';
import { listLogs } from '@/server/logs/service';
import { freshDatabase, ownerConnection } from '@/test/database';
import { ArtifactCorruptError, sha256OfFile } from '@/lib/artifacts/artifact-store';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { sweepDeadSandboxes } from '@/lib/sandbox/pool/sweep';
import { ensureTestEnvironment, TEST_STORE } from '@/lib/sandbox/sandbox.testkit';
import { defaultWorkerSpecs, startSupervisor, type Supervisor } from '@/workers/supervisor';
import { rlTestDirs, TINY_RL_ENV, untilRun } from './rl.testkit';

/**
 * Issue 19's scale-out test: two worker hosts, simulated as two supervisors whose worker
 * processes each have their own data directory, CRUCIBLE_NODE and nothing shared but one
 * PostgreSQL. Checkpoints travel through the artifact store's default backend with a shared
 * DATABASE_URL (the database); neither host can read the other's disk.
 */

type Host = {
  name: string;
  dataDir: string;
  env: Record<string, string | undefined>;
  supervisor: Supervisor;
  log: string[];
  /** every worker process the host's supervisor started (each the leader of its own process group) */
  pids: number[];
};

let database: Database;
const hosts: Host[] = [];
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

/** The settings one host's workers get: its own node name and data directory, the tiny RL settings, a short lease. */
function hostEnv(name: string, dataDir: string): Record<string, string | undefined> {
  return {
    DATABASE_URL: database.url,
    DATABASE_OWNER_URL: undefined,
    CRUCIBLE_NODE: name,
    CRUCIBLE_DATA_DIR: dataDir,
    CRUCIBLE_ENV_STORE: TEST_STORE,
    ...TINY_RL_ENV,
    // a killed host's jobs are claimable again 4 s after its last heartbeat
    CRUCIBLE_RL_LEASE_MS: '4000',
    CRUCIBLE_JOB_CONCURRENCY: '1',
    CRUCIBLE_QUEUE_POLL_MS: '300',
    CRUCIBLE_WORKER_HEARTBEAT_MS: '500',
    // the default with a shared DATABASE_URL: the database backend; no directory is shared
    CRUCIBLE_ARTIFACT_BACKEND: undefined,
    CRUCIBLE_ARTIFACT_DIR: undefined,
  };
}

/**
 * One worker host: the job-worker process `npm start -- --workers-only` runs (the RL queues'
 * consumer, default handler registry), under its own supervisor. Its other workers
 * (maintenance, metrics, scheduler, sandbox) play no part in an RL run and are left out to
 * spare the CPU; with no scheduler heartbeating, jobs are claimed by any node (docs/queue.md).
 */
function startHost(name: string): Host {
  const dataDir = rlTestDirs(name).CRUCIBLE_DATA_DIR;
  const env = hostEnv(name, dataDir);
  const log: string[] = [];
  const pids: number[] = [];
  const supervisor = startSupervisor({
    specs: defaultWorkerSpecs({ jobWorkers: 1 }).filter((s) => s.name === 'jobs'),
    env,
    graceMs: 3000,
    log: (line) => log.push(`${elapsed()} ${line}`),
    onEvent: (e) => {
      if (e.type === 'spawn') pids.push(e.pid);
    },
  });
  const host = { name, dataDir, env, supervisor, log, pids };
  hosts.push(host);
  return host;
}

/**
 * Processes of a host still alive anywhere on this machine: any whose environment or command
 * line names its data directory, or that sits in a sandbox cgroup of one of its workers
 * (`<worker pid>.<start time>.sb-…`: the sandboxed programs, which see neither).
 */
function processesOf(h: Host): number[] {
  const found: number[] = [];
  const sandboxOf = new RegExp(`/(${h.pids.join('|')})\\.\\d+\\.sb-`);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      const cgroup = readFileSync(`/proc/${pid}/cgroup`, 'latin1');
      if (env.includes(`CRUCIBLE_DATA_DIR=${h.dataDir}\0`) || cmd.includes(h.dataDir) || (h.pids.length && sandboxOf.test(cgroup))) found.push(Number(pid));
    } catch {
      /* exited meanwhile, or not ours to read */
    }
  }
  return found;
}

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function until(what: string, probe: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Wait until a job worker of each named host has registered (workers.node) and is running. */
async function untilHosts(names: string[]) {
  const end = Date.now() + 45_000;
  for (;;) {
    const up = (await database.sql<{ node: string }[]>`select distinct node from workers where status = 'running' and node is not null`).map((r) => r.node);
    if (names.every((n) => up.includes(n))) return;
    if (Date.now() > end) throw new Error(`timed out waiting for the job workers of ${names.join(', ')} to register (up: ${up.join(', ')})${tail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const tail = () => hosts.map((h) => `\n--- ${h.name}:\n${h.log.slice(-12).join('\n')}`).join('');

beforeAll(async () => {
  ensureTestEnvironment();
  database = await freshDatabase();
});

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.supervisor.stop()));
  for (const h of hosts) {
    // nothing of either host may outlive the test
    await until(`${h.name}'s processes to exit`, () => processesOf(h).length === 0, 10_000).catch(() => {
      for (const pid of processesOf(h)) process.kill(pid, 'SIGKILL');
      throw new Error(`${h.name} left processes behind: ${processesOf(h).join(', ')}`);
    });
    // a killed worker's sandbox scratch mounts stay until a sandbox manager starts and sweeps
    // them (lib/sandbox/pool/sweep.ts): do what a restarted host would, then check
    sweepDeadSandboxes(h.dataDir);
    expect(
      readFileSync('/proc/mounts', 'utf8')
        .split('\n')
        .filter((l) => l.includes(h.dataDir)),
    ).toEqual([]);
    rmSync(h.dataDir, { recursive: true, force: true });
  }
}, 30_000);

describe('two worker hosts sharing only PostgreSQL (real processes, database artifact backend)', () => {
  it('runs episodes on both hosts, survives kill -9 of one host with nothing lost or counted twice, and re-fetches a corrupt cached checkpoint', async () => {
    const { db, sql } = database;
    // PPO: its value loss changes the weights every iteration even when all rewards are equal
    // (GRPO would skip such an update), so every version is a new artifact that has to travel
    const config = { algorithm: 'ppo' as const, seed: 11, iterations: 3, tasksPerIteration: 2, groupSize: 2, maxTurns: 1, concurrency: 2, klCoef: 0 };
    const slots = config.iterations * config.tasksPerIteration * config.groupSize;
    const a = startHost('host-a');
    const b = startHost('host-b');
    // both hosts up before the run exists, so either may take its first jobs
    await untilHosts(['host-a', 'host-b']);
    console.log(`${elapsed()}: both hosts' job workers registered`);
    const run = await createRun(db, { name: 'two-hosts', config }, 'test');

    // ---- 1. both hosts run episodes; then kill -9 one that holds an episode of iteration >= 1 in flight
    const scoredHosts = async () =>
      (await sql<{ host: string }[]>`select distinct host from episodes where run_id = ${run.id} and status = 'scored'`).map((r) => r.host);
    /** rl.episode jobs leased right now, with the host (workers.node) holding them and their episode */
    const inFlight = () =>
      sql<{ node: string; episode_id: string; iteration: number }[]>`
        select w.node, e.id as episode_id, e.iteration
        from jobs j join workers w on w.id = j.lease_owner join episodes e on e.id::text = j.payload->>'episodeId'
        where j.queue = 'rl.episode' and j.state = 'running' and j.lease_expires_at > now()
          and e.run_id = ${run.id} and e.status = 'running' and e.iteration >= 1`;
    let victim: Host | undefined;
    let lostEpisodes: string[] = [];
    await untilRun(
      db,
      run.id,
      'both hosts to have scored episodes and one to hold an episode of iteration >= 1',
      async (r) => {
        if (r.status !== 'running' || r.currentIteration < 1) return r.status === 'failed' || r.status === 'completed';
        const scored = await scoredHosts();
        if (!(scored.includes('host-a') && scored.includes('host-b'))) return false;
        const flying = await inFlight();
        const held = flying.find((f) => f.node === 'host-a' || f.node === 'host-b');
        if (!held) return false;
        victim = held.node === 'host-a' ? a : b;
        // a whole machine dies: SIGKILL to every process group of the host, no restart
        const groups = victim.supervisor.status().map((s) => s.pid!);
        victim.supervisor.kill();
        console.log(
          `${elapsed()}: kill -9 ${victim.name} (process groups ${groups.join(', ')}) holding ${flying.filter((f) => f.node === victim!.name).length} episode(s) of iteration ${held.iteration}`,
        );
        lostEpisodes = flying.filter((f) => f.node === victim!.name).map((f) => f.episode_id);
        await victim.supervisor.stop();
        await until(`${victim.name}'s process groups to be gone`, () => groups.every((g) => !groupAlive(g)), 10_000);
        return true;
      },
      110_000,
      tail,
    );
    expect(victim, `the run ended before the kill:${tail()}`).toBeDefined();
    const dead = victim!;
    const survivor = dead === a ? b : a;
    await until(`every process of ${dead.name} to be gone`, () => processesOf(dead).length === 0, 10_000);
    // the killed host's episode never committed: its lease is what the survivor re-claims
    const unfinished = lostEpisodes.length
      ? await sql<{ id: string }[]>`select id from episodes where id = any(${sql.array(lostEpisodes)}::uuid[]) and status = 'running'`
      : [];
    expect(unfinished.length, 'the killed host had an episode in flight that it never finished').toBeGreaterThanOrEqual(1);

    // ---- 2. the survivor finishes the run: nothing lost, nothing counted twice
    const done = await untilRun(db, run.id, `${survivor.name} to finish the run`, (r) => r.status === 'completed' || r.status === 'failed', 80_000, tail);
    console.log(`${elapsed()}: run ${done.status} on ${survivor.name}`);
    expect(done.status, `${done.error}${tail()}`).toBe('completed');
    expect(done.currentIteration).toBe(config.iterations);

    const eps = await db.select().from(episodes).where(eq(episodes.runId, run.id));
    expect(eps).toHaveLength(slots);
    expect(new Set(eps.map((e) => `${e.iteration}:${e.groupIndex}:${e.sampleIndex}`)).size).toBe(slots);
    expect(eps.filter((e) => e.status !== 'scored')).toEqual([]);
    expect(done.episodesDone).toBe(slots);
    const rw = await db
      .select({ episodeId: rewards.episodeId })
      .from(rewards)
      .innerJoin(episodes, eq(episodes.id, rewards.episodeId))
      .where(eq(episodes.runId, run.id));
    expect(rw).toHaveLength(slots);
    expect(new Set(rw.map((r) => r.episodeId)).size).toBe(slots);
    console.log(`${unfinished.length} episode(s) lost with ${dead.name} were run again by ${survivor.name}`);
    for (const id of unfinished.map((u) => u.id)) expect(eps.find((e) => e.id === id)?.host, `episode ${id} lost with ${dead.name}`).toBe(survivor.name);
    expect(new Set(eps.map((e) => e.host))).toEqual(new Set(['host-a', 'host-b']));

    // ---- logs from both hosts, in one query by run id (issue 38): each record names its host, worker and ids
    const logs = await listLogs(db, { run: run.id, limit: 1000 });
    const byHost = (h: string) => logs.items.filter((r) => r.host === h);
    console.log(`log records of the run: ${logs.items.length} (host-a ${byHost('host-a').length}, host-b ${byHost('host-b').length})`);
    expect(new Set(logs.items.map((r) => r.host))).toEqual(new Set(['host-a', 'host-b']));
    for (const h of ['host-a', 'host-b']) {
      const mine = byHost(h);
      expect(mine.every((r) => r.process === 'jobs' && r.workerId !== null && r.runId === run.id)).toBe(true);
      // episode lines (bound to an episode this host ran) and job lifecycle lines
      expect(mine.some((r) => r.episodeId !== null && r.msg.startsWith('episode started'))).toBe(true);
      expect(mine.some((r) => r.jobId !== null && /^job \d+ finished: /.test(r.msg))).toBe(true);
    }
    expect(logs.items.some((r) => r.fields.stage === 'sandbox')).toBe(true);
    expect(logs.items.some((r) => r.fields.stage === 'learner')).toBe(true);

    // ---- checkpoints crossed hosts through the database: versions 0..n, each published once, used by a host that did not publish it
    const versions = await db.select().from(policyVersions).where(eq(policyVersions.runId, run.id));
    expect(versions.map((v) => v.version).sort((x, y) => x - y)).toEqual([0, 1, 2, 3]);
    expect(versions.every((v) => v.checkpointPath === null)).toBe(true);
    const published = await sql<{ version: number; sha256: string; published_by: string }[]>`
      select v.version, v.sha256, a.published_by from policy_versions v join artifacts a on a.sha256 = v.sha256
      where v.run_id = ${run.id} order by v.version`;
    expect(published.map((p) => p.version)).toEqual([0, 1, 2, 3]);
    expect(new Set(published.map((p) => p.sha256)).size, 'every version is its own checkpoint').toBe(4);
    const used = await sql<{ version: number; host: string; n: number }[]>`
      select v.version, e.host, count(*)::int as n from episodes e join policy_versions v on v.id = e.policy_version_id
      where e.run_id = ${run.id} group by 1, 2 order by 1, 2`;
    console.log(
      `published by: ${published.map((p) => `v${p.version} ${p.sha256.slice(0, 8)} ${p.published_by}`).join(', ')}; episodes by version and host: ${used.map((u) => `v${u.version} ${u.host}×${u.n}`).join(', ')}`,
    );
    const crossed = used.filter((u) => published.find((p) => p.version === u.version)!.published_by !== u.host);
    expect(crossed.length, 'no host ran an episode on a checkpoint published by the other').toBeGreaterThanOrEqual(1);
    for (const h of [a, b]) {
      const cached = readdirSync(path.join(h.dataDir, 'artifacts', 'cache')).filter((f) => /^[0-9a-f]{64}$/.test(f));
      expect(cached.length, `${h.name} cached no checkpoint`).toBeGreaterThanOrEqual(1);
    }

    // ---- 3. a corrupted cached checkpoint on the survivor is detected and fetched again from the database
    await survivor.supervisor.stop();
    const lines: string[] = [];
    const store = openArtifactStore(parseSettings(Object.fromEntries(Object.entries(survivor.env).filter((e): e is [string, string] => e[1] !== undefined))), {
      dataDir: survivor.dataDir,
      db,
      log: (l) => lines.push(l),
    });
    expect(store.backend.name).toBe('database');
    const target = crossed.find((c) => c.host === survivor.name) ?? used.find((u) => u.host === survivor.name)!;
    const sha = published.find((p) => p.version === target.version)!.sha256;
    const cachedFile = store.cachePath(sha);
    expect(existsSync(cachedFile), `${survivor.name} has v${target.version} cached`).toBe(true);
    const corrupt = () => {
      const fd = openSync(cachedFile, 'r+');
      writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, 128);
      closeSync(fd);
    };
    corrupt();
    expect((await sha256OfFile(cachedFile)).sha256).not.toBe(sha);
    const fetched = await store.fetch(sha);
    expect(fetched).toBe(cachedFile);
    expect((await sha256OfFile(fetched)).sha256).toBe(sha);
    expect(lines.join('\n')).toMatch(new RegExp(`artifact ${sha}: the cached copy .* hashes to [0-9a-f]{64}; dropped, fetching it again from database`));

    // ---- and a corrupt copy in the database is an ArtifactCorruptError, not a silent re-download
    const owner = ownerConnection(database);
    const changed = await owner.sql`update artifact_chunks set data = decode(repeat('00', length(data)), 'hex') where sha256 = ${sha} and seq = 0`;
    expect(changed.count).toBe(1);
    corrupt();
    const err = await store.fetch(sha).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactCorruptError);
    expect((err as Error).message).toMatch(`artifact ${sha} fetched from the database artifact store hashes to`);
    expect(existsSync(cachedFile), 'the corrupt copy is not kept in the cache').toBe(false);
    console.log(`${elapsed()}: done`);
  }, 240_000);
});
