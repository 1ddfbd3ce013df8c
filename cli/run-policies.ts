import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { settings } from '@/core/settings';
import { dataDir } from '@/db/open-database';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { latestVersion, versionRow } from '@/workers/rl/policy-store';
import { CliError, intOption, output, type Command } from './args';
import { cliDatabase } from './database';

/**
 * `crucible policy fetch`: a run's trained policy version, from any host, by the sha256 its
 * version row records (checkpoints live in the artifact store, docs/scale-out.md). The file it
 * writes is a checkpoint `policy export`, `sample` and `inspect` take as POLICY.
 */

const usage = 'crucible policy fetch RUN_ID [--version N] --out FILE.ckpt [--json]';

const fetchCmd: Command = {
  name: 'policy fetch',
  summary: "copy a run's policy version (latest by default) out of the artifact store, verified by its sha256",
  usage,
  options: { version: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' } },
  run: async ({ values, positionals }) => {
    const runId = positionals[0];
    if (!runId || !z.uuid().safeParse(runId).success) throw new CliError(`RUN_ID must be a run's id (a UUID, see \`crucible runs list\`)\nusage: ${usage}`);
    if (!values.out) throw new CliError(`missing --out\nusage: ${usage}`);
    const version = intOption(values.version, 'version');
    const db = (await cliDatabase()).db;
    const v = version === undefined ? await latestVersion(db, runId) : await versionRow(db, runId, version);
    if (!v) {
      throw new CliError(
        version === undefined
          ? `run ${runId} has no policy versions (no such run, or it has not started)`
          : `run ${runId} has no policy version ${version} (see \`crucible runs show ${runId}\`)`,
      );
    }
    const store = openArtifactStore(settings(), { dataDir: dataDir(), db });
    try {
      const file = await store.fetch(v.sha256).catch((e: Error) => {
        throw new CliError(`cannot fetch policy version v${v.version} of run ${runId} (sha256 ${v.sha256}): ${e.message}`, 1);
      });
      const out = path.resolve(values.out as string);
      await fs.mkdir(path.dirname(out), { recursive: true });
      await fs.copyFile(file, out);
      const result = { runId, version: v.version, sha256: v.sha256, bytes: (await fs.stat(out)).size, path: out, backend: store.backend.name };
      output(!!values.json, result, () => `wrote ${out}: run ${runId} v${v.version}, sha256 ${v.sha256} (${result.bytes.toLocaleString()} bytes)`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

export const runPolicyCommands: Command[] = [fetchCmd];
