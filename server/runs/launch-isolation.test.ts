import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultIsolation } from '@/core/sandbox-runtimes';
import type { Database } from '@/db/client';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { markWorkerStopped, registerWorker } from '@/workers/process/registration';
import { joinNode } from '@/lib/scheduler/node';
import { listRunEvents } from './service';
import { deploymentHosts } from './deployment';
import { launchRunSchema, resolveLaunchIsolation } from './launch-isolation';
import { checkLaunchQuota } from './launch-quota';

// Issue 18's risk-tier policy at launch: unset tiers get routine → gvisor, high → microvm where a
// sandbox host has them; a named runtime no host has is refused before the run exists.

const capacity = { cpus: 2, memoryMb: 4096, gpuCount: 0, gpuMemoryMb: 0, diskMb: 10_000 };
const launch = (config: object) => launchRunSchema.parse({ name: 'x', config }).config;

describe('risk-tier defaults (pure)', () => {
  it('prefer gvisor for routine and microvm for high, else the next strongest with a note', () => {
    expect(defaultIsolation(['bwrap', 'gvisor', 'microvm'])).toEqual({ isolation: { routine: 'gvisor', high: 'microvm' }, notes: [] });
    const noVm = defaultIsolation(['bwrap', 'gvisor']);
    expect(noVm.isolation).toEqual({ routine: 'gvisor', high: 'gvisor' });
    expect(noVm.notes).toEqual([expect.stringMatching(/^high risk defaults to gvisor: microvm is not installed .*system-deps\.sh/)]);
    expect(defaultIsolation(['bwrap']).isolation).toEqual({ routine: 'bwrap', high: 'bwrap' });
    expect(defaultIsolation([]).isolation).toBeNull();
  });

  it('fill only the tiers left unset; a named tier is checked, never changed', () => {
    const all = { available: ['bwrap', 'gvisor', 'microvm'], source: 'workers' as const };
    expect(resolveLaunchIsolation(launch({}), all).config.isolation).toEqual({ routine: 'gvisor', high: 'microvm' });
    expect(resolveLaunchIsolation(launch({ isolation: { routine: 'bwrap' } }), all).config.isolation).toEqual({ routine: 'bwrap', high: 'microvm' });
    // aliases resolve to the runtime that serves them
    expect(resolveLaunchIsolation(launch({ isolation: { routine: 'oci:runsc', high: 'microvm' } }), all).notes).toEqual([]);
    const onlyBwrap = { available: ['bwrap'], source: 'workers' as const };
    expect(() => resolveLaunchIsolation(launch({ isolation: { high: 'microvm' } }), onlyBwrap)).toThrow(
      /isolation\.high: microvm is not installed on any live sandbox host.*bash scripts\/system-deps\.sh.*available: bwrap.*never downgraded/,
    );
    expect(() => resolveLaunchIsolation(launch({}), { available: [], source: 'workers' })).toThrow(/no sandbox runtime is installed/);
  });
});

describe('launch quota (pure)', () => {
  it('names the host that has the most of each figure', () => {
    const deployment = { source: 'workers' as const, largest: { cpus: 8, cpusHost: 'cpu-box', memoryMb: 65536, memoryHost: 'mem-box' } };
    expect(() => checkLaunchQuota({ cpus: 8, memoryMb: 65536 }, deployment)).not.toThrow();
    expect(() => checkLaunchQuota({ cpus: 16, memoryMb: 131072 }, deployment)).toThrow(
      /quota\.cpus is 16 but the largest live sandbox host \(cpu-box\) has 8 vCPUs.*quota\.memoryMb is 131072 but the largest live sandbox host \(mem-box\) has 65536 MB/,
    );
  });
});

describe('launch against the deployment (real Postgres)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('knows the runtimes live sandbox hosts reported, and nothing from stopped ones', async () => {
    const db = database.db;
    const a = await registerWorker(db, 'jobs', { ...capacity, runtimes: ['bwrap', 'gvisor'] });
    const gone = await registerWorker(db, 'jobs', { ...capacity, runtimes: ['bwrap', 'microvm'] });
    await markWorkerStopped(db, gone);
    // joining a scheduler node rewrites the capacity but keeps what the host reported
    await joinNode(db, a, 'node-a', capacity);
    expect(await deploymentHosts(db)).toEqual({
      available: ['bwrap', 'gvisor'],
      source: 'workers',
      largest: { cpus: 2, cpusHost: 'node-a', memoryMb: 4096, memoryHost: 'node-a' },
      // one live host: the stopped one's capacity is not counted
      total: { cpus: 2, memoryMb: 4096, hosts: 1 },
    });
  });

  it('runs.create fills unset tiers with the defaults and says so; refuses a runtime no host has; clone is checked too', async () => {
    const db = database.db;
    const operator = await callerAs(db, 'operator');
    const run = await operator.runs.create({ name: 'defaults', config: { iterations: 1, quota: { cpus: 2, memoryMb: 1024 } } });
    // this deployment (above) has gvisor but no microvm
    expect(run.config.isolation).toEqual({ routine: 'gvisor', high: 'gvisor' });
    const created = (await listRunEvents(db, run.id)).find((e) => e.type === 'created')!;
    expect(created.message).toMatch(/isolation defaults for this deployment: routine → gvisor, high → gvisor/);
    expect(created.message).toMatch(/microvm is not installed/);

    const refused = await operator.runs
      .create({ name: 'vm', config: { isolation: { routine: 'bwrap', high: 'microvm' }, quota: { cpus: 1, memoryMb: 1024 } } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe('BAD_REQUEST');
    expect((refused as TRPCError).message).toMatch(/isolation\.high: microvm is not installed on any live sandbox host.*system-deps\.sh/);

    // a run named gvisor; then every gvisor host goes away: its clone is refused at launch
    const named = await operator.runs.create({
      name: 'named',
      config: { isolation: { routine: 'gvisor', high: 'bwrap' }, quota: { cpus: 1, memoryMb: 1024 } },
    });
    await db.execute(`update workers set capacity = capacity || '{"runtimes": ["bwrap"]}'::jsonb`);
    await expect(operator.runs.clone({ id: named.id })).rejects.toThrow(/isolation\.routine: gvisor is not installed/);

    // a quota no host can hold (64 vCPUs on 2-vCPU nodes) is refused before the run exists
    await expect(operator.runs.create({ name: 'huge', config: { quota: { cpus: 64 } } })).rejects.toThrow(
      /no sandbox host is large enough.*quota\.cpus is 64 but the largest live sandbox host \(node-a\) has 2 vCPUs; set it to at most 2/,
    );
    await expect(operator.runs.create({ name: 'fat', config: { quota: { cpus: 1, memoryMb: 8192 } } })).rejects.toThrow(/quota\.memoryMb is 8192 .* 4096 MB/);

    const options = await operator.runs.launchOptions();
    expect(options).toMatchObject({ runtimes: ['bwrap'], source: 'workers', isolationDefaults: { routine: 'bwrap', high: 'bwrap' } });
  });
});
