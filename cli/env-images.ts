import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { environmentNameProblem } from '@/core/environments';
import { settings } from '@/core/settings';
import { dataDir, envStoreDir } from '@/db/open-database';
import { environmentImage, recordEnvironmentImage } from '@/server/environments/registry';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { installEnvironmentImage, packEnvironmentImage } from '@/lib/sandbox/env/env-image';
import { resolveEnvironment } from '@/lib/sandbox/env/env-builtin';
import { verifyEnvironmentFull } from '@/lib/sandbox/env/env-verify';
import { SandboxError } from '@/lib/sandbox/types';
import { CliError, output, type Command } from './args';
import { cliDatabase } from './database';

/**
 * `crucible env publish|fetch`: environments travel between worker hosts as images in the
 * artifact store, named by sha256 and checked against the baseline hash (docs/scale-out.md).
 */

const nameArg = (positionals: string[], usage: string): string => {
  const name = positionals[0];
  if (!name) throw new CliError(`missing NAME\nusage: ${usage}`);
  const problem = environmentNameProblem(name);
  if (problem) throw new CliError(`${problem}\nusage: ${usage}`);
  return name;
};

const storeFor = async () => {
  const db = (await cliDatabase()).db;
  return { db, store: openArtifactStore(settings(), { dataDir: dataDir(), db }) };
};

const publishUsage = 'crucible env publish NAME [--json]';
const publish: Command = {
  name: 'env publish',
  summary: "put this host's build of an environment into the artifact store, so other worker hosts fetch it by hash",
  usage: publishUsage,
  options: { json: { type: 'boolean' } },
  run: async ({ values, positionals }) => {
    const name = nameArg(positionals, publishUsage);
    let env;
    try {
      env = resolveEnvironment(name, envStoreDir());
    } catch (e) {
      throw new CliError((e as Error).message);
    }
    // never publish a copy that has drifted from its manifest
    const v = verifyEnvironmentFull(env);
    if (!v.ok)
      throw new CliError(
        `environment "${name}" on this host does not match its manifest (${v.problems.slice(0, 5).join('; ')}); rebuild it with \`crucible env build\``,
      );
    const { db, store } = await storeFor();
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-env-image-'));
    try {
      const file = path.join(tmp, 'image.tar');
      await packEnvironmentImage(env, file);
      const ref = await store.publishFile(file);
      await recordEnvironmentImage(db, env, ref.sha256).catch((e: Error) => {
        throw new CliError(e.message);
      });
      const result = { name, hash: env.hash, imageSha256: ref.sha256, bytes: ref.size, backend: store.backend.name };
      output(
        !!values.json,
        result,
        () => `published ${name} ${env.hash}\nimage sha256 ${ref.sha256} (${(ref.size / 1e6).toFixed(1)} MB) in the ${store.backend.describe()} artifact store`,
      );
      return 0;
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
      await store.close();
    }
  },
};

const fetchUsage = 'crucible env fetch NAME [--json]';
const fetchCmd: Command = {
  name: 'env fetch',
  summary: 'install the published image of an environment on this host, verified against its baseline hash',
  usage: fetchUsage,
  options: { json: { type: 'boolean' } },
  run: async ({ values, positionals }) => {
    const name = nameArg(positionals, fetchUsage);
    const { db, store } = await storeFor();
    try {
      const image = await environmentImage(db, name);
      if (!image)
        throw new CliError(
          `environment "${name}" has no published image; publish it on a host that has it with \`crucible env publish ${name}\`, or build it here with \`crucible env build\``,
        );
      let env;
      try {
        env = await installEnvironmentImage(name, await store.fetch(image.imageSha256), image.hash, envStoreDir());
      } catch (e) {
        throw new CliError(e instanceof SandboxError ? e.message : `cannot fetch image ${image.imageSha256}: ${(e as Error).message}`);
      }
      output(
        !!values.json,
        { name, hash: env.hash, imageSha256: image.imageSha256, fileCount: env.fileCount, totalBytes: env.totalBytes },
        () => `fetched ${name} ${env.hash} (image ${image.imageSha256.slice(0, 12)}, ${env.fileCount} files)`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};

export const envImageCommands: Command[] = [publish, fetchCmd];
