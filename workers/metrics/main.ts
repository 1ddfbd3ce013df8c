// The metrics sampler: `node --import tsx workers/metrics/main.ts`. Every few seconds stores
// this node's CPU/memory/GPU and the cluster's sandbox/queue/run figures in metric_samples;
// once a minute rolls raw samples up into 1-minute and 10-minute averages and applies retention.
import { setTimeout as sleep } from 'node:timers/promises';
import { settings } from '@/core/settings';
import { runWorkerProcess } from '@/workers/process/worker-process';
import { WORKER_KINDS } from '@/core/queues';
import { rollup } from './rollup';
import { sampleCluster, sampleNode, sampleNodeCpuParts, storeSamples } from './sampler';

const { CRUCIBLE_METRICS_INTERVAL_MS: intervalMs, CRUCIBLE_RESERVE_FRACTION, CRUCIBLE_DATA_DIR: dataDir } = settings();
// the scheduler's default reserve when none is set (lib/scheduler/config.ts defaultConfig)
const reserveFraction = CRUCIBLE_RESERVE_FRACTION ?? 0.3;
const rollupMs = 60_000;

await runWorkerProcess(WORKER_KINDS.metrics, async (ctx) => {
  const state = {};
  sampleNode(state, undefined, undefined, dataDir); // first CPU reading; utilisation needs a delta
  const partsState = {};
  await sampleNodeCpuParts(ctx.db, partsState).catch((e) => ctx.log(`cpu parts: ${(e as Error).message}`));
  let lastRollup = 0;
  while (!ctx.signal.aborted) {
    // timers/promises removes its abort listener when the timer fires (a listener per tick leaked before)
    await sleep(intervalMs, null, { signal: ctx.signal }).catch(() => null);
    if (ctx.signal.aborted) break;
    try {
      await storeSamples(ctx.db, [
        ...sampleNode(state, undefined, undefined, dataDir),
        ...(await sampleNodeCpuParts(ctx.db, partsState)),
        ...(await sampleCluster(ctx.db, reserveFraction)),
      ]);
      if (Date.now() - lastRollup >= rollupMs) {
        lastRollup = Date.now();
        const r = await rollup(ctx.db);
        if (r.written || r.deleted) ctx.log(`rollup: ${r.written} averaged, ${r.deleted} expired`);
      }
    } catch (e) {
      ctx.log(`sample failed: ${(e as Error).message}`);
    }
  }
});
