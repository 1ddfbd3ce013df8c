import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultRunConfig } from '@/core/run-config';
import { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { LocalArtifactBackend } from '@/lib/artifacts/backends/local';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import { Policy } from '@/lib/policy/policy';
import { loadRunPolicy, publishCheckpoint, type VersionRow } from './policy-store';

const tmp = mkdtempSync('/tmp/crucible-policy-store-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const localStore = (host: string) =>
  new ArtifactStore({ backend: new LocalArtifactBackend(path.join(tmp, host, 'store')), cacheDir: path.join(tmp, host, 'cache'), cacheBytes: 1 << 30 });

// A second host misconfigured with its own local store (scale-out, issue 19): the checkpoint the
// first host published is not there, and no retry will put it there. The job must fail at once,
// saying which setting to fix, rather than retry until it gives up.
describe('loadRunPolicy on a host that looks in another artifact store', () => {
  it('fails permanently with the setting to fix', async () => {
    const a = localStore('host-a');
    const policy = Policy.create({ model: { dModel: 16, nLayers: 1, nHeads: 2, dMlp: 32, maxSeqLen: 32 }, seed: 1 });
    const ref = await publishCheckpoint(a, policy, 'run-1', 0, path.join(tmp, 'host-a'));
    await policy.release();
    const v = { version: 0, sha256: ref.sha256, checkpointPath: null } as VersionRow;
    const run = { id: 'run-1', config: defaultRunConfig };
    // host A finds it
    await (await loadRunPolicy(run, v, { store: a, dataDir: path.join(tmp, 'host-a') })).release();
    const err = await loadRunPolicy(run, v, { store: localStore('host-b'), dataDir: path.join(tmp, 'host-b') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentJobError);
    expect((err as Error).message).toMatch(/policy version v0 of run run-1: artifact [0-9a-f]{64} is not in the local .* artifact store/);
    expect((err as Error).message).toMatch(/CRUCIBLE_ARTIFACT_BACKEND=database/);
  });
});
