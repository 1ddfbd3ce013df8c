import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { policyVersions, runs } from '@/db/schema';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import { DomainError } from '@/server/errors';
import { getModel, modelDirectory, withModelStore } from '@/server/models/service';

/**
 * The models this process has loaded for the OpenAI-compatible endpoint: a registered model by
 * name, or a run's policy as `run:RUN_ID` (its newest version) or `run:RUN_ID@vN`. At most
 * `MAX_LOADED` kept (the least recently used leaves the cache and is released once its requests
 * in flight are done), and one generation at a time per model, so concurrent requests queue rather than thrash the CPU. New weights under the same
 * name (a re-registered model, a run's next version) are loaded afresh.
 */
const MAX_LOADED = 2;

type Loaded = {
  key: string;
  policy: Promise<{ sampler: HfPolicy; release: () => Promise<void> }>;
  queue: Promise<unknown>;
  usedAt: number;
  /** requests holding or waiting for it */
  active: number;
  /** out of the cache: released when `active` reaches 0 */
  evicted: boolean;
};
const loaded = new Map<string, Loaded>();

/** `run:RUN_ID[@vN]`: which run and version (undefined for the newest), or undefined for a registered model's name. */
export function runModelRef(model: string): { runId: string; version?: number } | undefined {
  const m = /^run:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:@v(\d{1,9}))?$/i.exec(model);
  return m ? { runId: m[1]!.toLowerCase(), ...(m[2] !== undefined ? { version: Number(m[2]) } : {}) } : undefined;
}

/** What to load for `model`, and the key its weights are cached under. */
async function resolve(db: Db, model: string): Promise<{ key: string; load: () => Promise<{ sampler: HfPolicy; release: () => Promise<void> }> }> {
  const ref = runModelRef(model);
  if (!ref) {
    const row = await getModel(db, model);
    return {
      key: `${model}@${row.weightsSha256}`,
      load: async () => {
        const sampler = await HfPolicy.load(await withModelStore(db, (store, root) => modelDirectory(store, row, root)));
        return { sampler, release: () => sampler.release() };
      },
    };
  }
  const [run] = await db.select({ id: runs.id, config: runs.config }).from(runs).where(eq(runs.id, ref.runId));
  if (!run) throw new DomainError('NOT_FOUND', `no run ${ref.runId} (model "${model}")`);
  const policy = run.config.policy;
  if (policy.kind !== 'hf')
    throw new DomainError(
      'BAD_REQUEST',
      `run ${ref.runId} trains the built-in byte model, which has no chat template or tokenizer to serve; only runs of registered models are served`,
    );
  const [v] = await db
    .select()
    .from(policyVersions)
    .where(ref.version === undefined ? eq(policyVersions.runId, ref.runId) : and(eq(policyVersions.runId, ref.runId), eq(policyVersions.version, ref.version)))
    .orderBy(desc(policyVersions.version))
    .limit(1);
  if (!v) throw new DomainError('NOT_FOUND', `run ${ref.runId} has no policy version${ref.version === undefined ? ' yet' : ` v${ref.version}`}`);
  const row = await getModel(db, policy.model);
  return {
    key: `run:${ref.runId}@${v.sha256}`,
    load: () =>
      withModelStore(db, async (store, root) => {
        const dir = await modelDirectory(store, row, root);
        // the checkpoint by the sha256 its version row records, verified by the store
        const file = await store.fetch(v.sha256);
        const rl = await HfRlPolicy.load(dir, file, { base: row.weightsSha256 }, { precision: policy.precision });
        return { sampler: rl.samplerWithWeights(), release: () => rl.release() };
      }),
  };
}

/** Release an entry's model once it is out of the cache and nothing in flight uses it. */
function releaseIfIdle(e: Loaded) {
  if (e.evicted && e.active === 0) void e.policy.then((p) => p.release()).catch(() => undefined);
}

/** Run `fn` with `model` (a registered model's name, or `run:RUN_ID[@vN]`) loaded, after that model's earlier requests. */
export async function withLoadedModel<T>(db: Db, model: string, fn: (policy: HfPolicy) => Promise<T>): Promise<T> {
  const { key, load: open } = await resolve(db, model);
  // from here to the queue's hold, synchronous: no other request can evict the entry in between
  let entry = loaded.get(key);
  if (!entry) {
    while (loaded.size >= MAX_LOADED) {
      const [oldest] = [...loaded.values()].sort((a, b) => a.usedAt - b.usedAt);
      loaded.delete(oldest!.key);
      oldest!.evicted = true;
      releaseIfIdle(oldest!);
    }
    const created: Loaded = { key, policy: open(), queue: Promise.resolve(), usedAt: 0, active: 0, evicted: false };
    loaded.set(key, created);
    // a model that fails to load is not kept: the next request tries again and sees the error
    created.policy.catch(() => {
      if (loaded.get(key) === created) loaded.delete(key);
    });
    entry = created;
  }
  const e = entry;
  e.usedAt = performance.now();
  e.active++;
  const run = e.queue.then(async () => fn((await e.policy).sampler));
  e.queue = run.catch(() => undefined);
  try {
    return await run;
  } finally {
    e.active--;
    releaseIfIdle(e);
  }
}
