import type { Db } from '@/db/client';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { getModel, modelDirectory, withModelStore } from '@/server/models/service';

/**
 * The registered models this process has loaded for the OpenAI-compatible endpoint, by name
 * and weights: at most `MAX_LOADED` at once (the least recently used is released), and one
 * generation at a time per model, so concurrent requests queue rather than thrash the CPU.
 * A re-registered model (new weights under the same name) is loaded afresh.
 */
const MAX_LOADED = 2;

type Loaded = { key: string; policy: Promise<HfPolicy>; queue: Promise<unknown>; usedAt: number };
const loaded = new Map<string, Loaded>();

async function load(db: Db, name: string): Promise<Loaded> {
  const row = await getModel(db, name);
  const key = `${name}@${row.weightsSha256}`;
  const hit = loaded.get(key);
  if (hit) {
    hit.usedAt = performance.now();
    return hit;
  }
  while (loaded.size >= MAX_LOADED) {
    const [oldest] = [...loaded.values()].sort((a, b) => a.usedAt - b.usedAt);
    loaded.delete(oldest!.key);
    // released once its queued generations are done
    void oldest!.queue.finally(async () => (await oldest!.policy.catch(() => undefined))?.release());
  }
  const policy = withModelStore(db, (store, root) => modelDirectory(store, row, root)).then((dir) => HfPolicy.load(dir));
  const entry: Loaded = { key, policy, queue: Promise.resolve(), usedAt: performance.now() };
  loaded.set(key, entry);
  // a model that fails to load is not kept: the next request tries again and sees the error
  policy.catch(() => loaded.delete(key));
  return entry;
}

/** Run `fn` with the registered model `name` loaded, after the model's earlier requests. */
export async function withLoadedModel<T>(db: Db, name: string, fn: (policy: HfPolicy) => Promise<T>): Promise<T> {
  const entry = await load(db, name);
  const run = entry.queue.then(async () => fn(await entry.policy));
  entry.queue = run.catch(() => undefined);
  return run;
}
