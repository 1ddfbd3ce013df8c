import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { policyVersions, runs } from '@/db/schema';
import { getModel, modelDirectory, withModelStore } from '@/server/models/service';
import { exportHfDirectory } from '@/lib/policy/hf/export-hf';
import { writePeftAdapter } from '@/lib/policy/hf/export-peft';
import { HfRlPolicy } from '@/lib/policy/hf/hf-rl-policy';
import { loadRunPolicyForTraining } from '@/workers/rl/policy-store';
import type { Db } from '@/db/client';
import type { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { CliError } from './args';
import { cliDatabase } from './database';

/**
 * `models export --run RUN [--version N]`: a run's trained policy version, as a Hugging Face
 * directory (the registered base with the trained weights, or its LoRA adapter merged in) or
 * as its PEFT adapter. The checkpoint is fetched by hash and checked like a worker's.
 */
export async function exportRunModel(o: { run: string; version?: number; format: 'hf' | 'peft'; out: string }) {
  const { db } = await cliDatabase();
  return withModelStore(db, (store, root) => exportRunPolicy({ db, store, root }, o));
}

/** The export itself, on a given database and artifact store (the CLI's, or a test's). */
export async function exportRunPolicy(
  { db, store, root }: { db: Db; store: ArtifactStore; root: string },
  o: { run: string; version?: number; format: 'hf' | 'peft'; out: string },
) {
  if (!z.uuid().safeParse(o.run).success) throw new CliError(`--run must be a run id (see \`crucible runs list\`), got "${o.run}"`);
  const [run] = await db.select().from(runs).where(eq(runs.id, o.run));
  if (!run) throw new CliError(`no run ${o.run}`, 1);
  const choice = run.config.policy;
  if (choice?.kind !== 'hf')
    throw new CliError(`run ${run.id} trains the built-in byte model, not a registered one: export its checkpoints with \`crucible policy fetch\``, 1);
  const where = o.version === undefined ? eq(policyVersions.runId, run.id) : and(eq(policyVersions.runId, run.id), eq(policyVersions.version, o.version));
  const [v] = await db.select().from(policyVersions).where(where).orderBy(desc(policyVersions.version)).limit(1);
  if (!v) throw new CliError(`run ${run.id} has no policy version${o.version === undefined ? ' yet' : ` v${o.version}`}`, 1);
  if (o.format === 'peft' && choice.training !== 'lora')
    throw new CliError(`run ${run.id} fine-tunes every weight of ${choice.model} (no LoRA adapter): export it with --format hf`, 1);
  const row = await getModel(db, choice.model).catch((e: Error) => {
    throw new CliError(e.message, 1);
  });
  const dir = await modelDirectory(store, row, root);
  const policy = await loadRunPolicyForTraining(run, v, { store, dataDir: root, db });
  if (!(policy instanceof HfRlPolicy)) throw new CliError(`run ${run.id}: version v${v.version} is not a Hugging Face policy checkpoint`, 1);
  try {
    const source = { run: run.id, version: v.version, sha256: v.sha256, model: row.name, training: choice.training };
    if (o.format === 'peft') {
      const a = policy.trainer.adapter(row.name);
      return { ...source, ...(await writePeftAdapter(o.out, { ...a, base: policy.trainer.config })) };
    }
    return { ...source, ...(await exportHfDirectory({ from: dir, out: o.out, weights: policy.trainer.exportWeights() })) };
  } finally {
    await policy.release();
  }
}
