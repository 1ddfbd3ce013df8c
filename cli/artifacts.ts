import { settings } from '@/core/settings';
import { dataDir } from '@/db/open-database';
import { artifactReferences, collectArtifactGarbage } from '@/server/artifacts/gc';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { CliError, output, type Command } from './args';
import { cliDatabase } from './database';
import { table } from './format';

/** `crucible artifacts list|gc`: the content-addressed store checkpoints and environment images live in (docs/scale-out.md). */

const open = async () => {
  const db = (await cliDatabase()).db;
  return { db, store: openArtifactStore(settings(), { dataDir: dataDir(), db }) };
};

const list: Command = {
  name: 'artifacts list',
  summary: 'every stored artifact with its size, when it was published and what references it',
  usage: 'crucible artifacts list [--json]',
  options: { json: { type: 'boolean' } },
  run: async ({ values }) => {
    const { db, store } = await open();
    try {
      const refs = await artifactReferences(db);
      const rows: { sha256: string; size: number; publishedAt: string; referencedBy: string[] }[] = [];
      for await (const a of store.backend.list()) rows.push({ ...a, publishedAt: a.publishedAt.toISOString(), referencedBy: refs.get(a.sha256) ?? [] });
      output(!!values.json, { backend: store.backend.describe(), artifacts: rows }, () =>
        rows.length
          ? table(
              rows.map((r) => ({ ...r, referencedBy: r.referencedBy.join(', ') || '(nothing)' })),
              ['sha256', 'size', 'publishedAt', 'referencedBy'],
            )
          : `no artifacts in the ${store.backend.describe()} store`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};

const gcUsage = 'crucible artifacts gc [--grace-hours 24] [--dry-run] [--json]';
const gc: Command = {
  name: 'artifacts gc',
  summary: 'delete artifacts no policy version, environment or registered model references, published longer ago than the grace period',
  usage: gcUsage,
  options: { 'grace-hours': { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  run: async ({ values }) => {
    const hours = values['grace-hours'] === undefined ? 24 : Number(values['grace-hours']);
    if (!Number.isFinite(hours) || hours < 0)
      throw new CliError(`--grace-hours must be a number of hours ≥ 0, got ${String(values['grace-hours'])}\nusage: ${gcUsage}`);
    const { db, store } = await open();
    try {
      const r = await collectArtifactGarbage(db, store, { graceMs: hours * 3_600_000, dryRun: !!values['dry-run'] });
      output(
        !!values.json,
        { ...r, deleted: r.deleted.map((a) => ({ ...a, publishedAt: a.publishedAt.toISOString() })) },
        () =>
          `${r.dryRun ? 'would delete' : 'deleted'} ${r.deleted.length} artifact(s), ${(r.bytesFreed / 1e6).toFixed(1)} MB; kept ${r.referenced} referenced and ${r.recent} published within ${hours} h (of ${r.scanned} in the ${store.backend.describe()} store)`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};

export const artifactCommands: Command[] = [list, gc];
