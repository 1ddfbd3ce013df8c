import { createHash, randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { asc, desc, eq, sql } from 'drizzle-orm';
import { isWeightFile, MODEL_METADATA_FILES, modelFile, type ModelFile } from '@/core/models';
import { nulCharacterProblem } from '@/core/nul-characters';
import { settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/open-database';
import { models, runs } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { checkImportPath, importPathPolicy, type ImportPathPolicy } from '@/server/paths/import-path-policy';
import { joinInside } from '@/server/paths/join-inside';
import type { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { inspectTokenizerIsolated, InspectionLimitError, type TokenizerInspection } from '@/lib/policy/hf/isolated-inspection';
import { copyModelDir } from '@/lib/policy/hf/model-dir-copy';
import { checkHfModelDir } from '@/lib/policy/hf/model-dir';
import type { ChatMessage } from '@/lib/policy/hf/tokenizer';

/**
 * The models registry (issue 15): Hugging Face model directories imported once, recorded in
 * the `models` table, their files published to the artifact store by sha256 so any host can
 * rebuild the directory (`modelDirectory`) and get the same bytes. Callable without HTTP; the
 * tRPC router (server/routers/models.ts) and the CLI call these.
 */

export type ModelRow = typeof models.$inferSelect;

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** `sha256  name` lines, sorted by name, as `sha256sum` prints them: one hash for a set of files. */
const listingSha256 = (files: ModelFile[]) =>
  sha256Hex(
    [...files]
      .sort((a, b) => a.path.localeCompare(b.path))
      .map((f) => `${f.sha256}  ${f.path}\n`)
      .join(''),
  );

export type ModelDirDescription = {
  architecture: string;
  parameters: number;
  dtype: string;
  tokenizerSha256: string;
  weightsSha256: string;
  chatTemplate: string | null;
  config: Record<string, unknown>;
  files: (ModelFile & { file: string })[];
  bytes: number;
};

/**
 * Validate a model directory as sampling loads it, without reading weight data and without
 * running its tokenizer on this thread: config.json, generation config, every weight's
 * presence, shape and dtype from the safetensors headers (lib/policy/hf/model-dir.ts), then
 * the tokenizer built and probed and its chat template rendered on an isolated thread with
 * time and memory limits (isolated-inspection.ts; one exceeding them is refused). `dir` is a
 * copy made by copyModelDir (its files are `files`); errors name `shownDir`, the directory the
 * caller gave. A bad directory is BAD_REQUEST with a message naming the file.
 */
export async function describeModelDir(dir: string, files: ModelFile[], shownDir = dir): Promise<ModelDirDescription> {
  const refuse = (e: Error): never => {
    throw notImportable(shownDir, e, dir);
  };
  const tokenizer = await inspectTokenizerIsolated(dir, PREVIEW_CONVERSATION).catch(refuse);
  const loaded = await checkHfModelDir(dir, tokenizer.eos ?? undefined).catch(refuse);
  const kept = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => ({ ...f, file: path.join(dir, f.path) }));
  const weights = kept.filter((f) => isWeightFile(f.path));
  const single = weights.length === 1 ? weights[0] : undefined;
  const config = JSON.parse(await fs.readFile(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  // what becomes a jsonb/text column must hold no NUL (PostgreSQL refuses it: an opaque 500 otherwise)
  const nul = nulCharacterProblem({ 'config.json': config, chat_template: tokenizer.chatTemplate });
  if (nul) refuse(new Error(nul));
  return {
    architecture: loaded.config.architecture,
    parameters: loaded.parameters,
    dtype: Object.keys(loaded.storedDtypes).sort().join('+'),
    tokenizerSha256: kept.find((f) => f.path === 'tokenizer.json')!.sha256,
    weightsSha256: single ? single.sha256 : listingSha256(weights),
    chatTemplate: tokenizer.chatTemplate,
    config,
    files: kept,
    bytes: kept.reduce((s, f) => s + f.size, 0),
  };
}

/**
 * Register a model directory under `name` (docs/security.md, "Model import"): the directory
 * must lie under `paths` (CRUCIBLE_IMPORT_ROOTS over the API; the CLI may name any of its
 * own), its kept files are copied without following links out of it (copyModelDir) into a
 * private staging directory under `root`, the copy is checked by describeModelDir, then the
 * files are published to the artifact store and the row recorded with its audit entry in one
 * transaction.
 */
export async function importModel(
  db: Db,
  store: ArtifactStore,
  input: { name: string; dir: string },
  actor: string,
  // callers in this process (the in-process CLI, tests, benches) may name any directory
  o: { paths: ImportPathPolicy; root: string } = { paths: importPathPolicy([], { local: true, baseDir: input.dir }, 'model'), root: dataDir() },
): Promise<ModelRow> {
  const shown = path.resolve(input.dir);
  const allowed = checkImportPath(shown, o.paths, 'model directory', input.dir);
  if ('error' in allowed) throw new DomainError('BAD_REQUEST', allowed.error);
  // the resolved path that was checked is what is read (the copy pins its boundary there)
  const dir = allowed.path;
  await refuseTaken(db, input.name);
  const stagingRoot = path.join(o.root, 'tmp');
  await fs.mkdir(stagingRoot, { recursive: true, mode: 0o700 });
  const staged = await fs.mkdtemp(path.join(stagingRoot, 'model-import-'));
  try {
    const copied = await copyModelDir(dir, staged).catch((e: Error) => {
      throw notImportable(shown, e, dir);
    });
    const d = await describeModelDir(staged, copied, shown);
    for (const f of d.files) {
      const ref = await store.publishFile(f.file);
      if (ref.sha256 !== f.sha256)
        throw new DomainError('CONFLICT', `${path.join(shown, f.path)} changed while it was imported (sha256 ${f.sha256} then ${ref.sha256}); import it again`);
    }
    const files = d.files.map(({ path: p, sha256, size }) => ({ path: p, sha256, size }));
    return await insertModel(db, input.name, shown, d, files, actor);
  } finally {
    await fs.rm(staged, { recursive: true, force: true });
  }
}

/** The refusal of an import: the caller's directory named, and in the reason instead of the path that was read. */
const notImportable = (shown: string, e: Error, read: string) =>
  new DomainError('BAD_REQUEST', `${shown} is not a model directory Crucible can import: ${e.message.replaceAll(read, shown)}`);

async function insertModel(db: Db, name: string, dir: string, d: ModelDirDescription, files: ModelFile[], actor: string): Promise<ModelRow> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(models)
        .values({
          name,
          architecture: d.architecture,
          parameters: d.parameters,
          dtype: d.dtype,
          tokenizerSha256: d.tokenizerSha256,
          weightsSha256: d.weightsSha256,
          chatTemplate: d.chatTemplate,
          config: d.config,
          files,
          bytes: d.bytes,
          source: dir,
          createdBy: actor,
        })
        .returning();
      await appendAudit(tx, {
        actor,
        action: 'model.import',
        targetType: 'model',
        targetId: row!.id,
        details: { name, architecture: d.architecture, parameters: d.parameters, dtype: d.dtype, weightsSha256: d.weightsSha256, source: dir },
      });
      return row!;
    });
  } catch (e) {
    // a concurrent import took the name between the check and the insert
    if ((e as { code?: string }).code === '23505' || (e as { cause?: { code?: string } }).cause?.code === '23505') await refuseTaken(db, name);
    throw e;
  }
}

async function refuseTaken(db: Db, name: string): Promise<void> {
  const [taken] = await db.select({ id: models.id }).from(models).where(eq(models.name, name));
  if (taken) throw new DomainError('CONFLICT', `a model named "${name}" is already registered; choose another --name (see \`crucible models list\`)`);
}

export async function listModels(db: Db): Promise<ModelRow[]> {
  return db.select().from(models).orderBy(asc(models.name));
}

export async function getModel(db: Db, name: string): Promise<ModelRow> {
  const [row] = await db.select().from(models).where(eq(models.name, name));
  if (!row)
    throw new DomainError(
      'NOT_FOUND',
      `no model named "${name}" (see \`crucible models list\`, or register one with \`crucible models import DIR --name ${name}\`)`,
    );
  return row;
}

/**
 * A local directory holding `files` as their names, fetched from the artifact store by hash
 * (each verified) under `<root>/models/<hash of the listing>`: built once per host in a temp
 * directory and renamed into place, so a half-built one is never used. The names come from
 * a database row, which the app role (every worker host) can write: each is checked on the
 * way out as on the way in (a model file name, and the joined path inside the directory), so
 * an edited row cannot make an export or a worker write outside it.
 */
export async function materializeFiles(store: ArtifactStore, files: ModelFile[], root: string): Promise<string> {
  for (const f of files) storedModelFileProblem(f);
  const final = path.join(root, 'models', listingSha256(files).slice(0, 32));
  if (await fs.stat(path.join(final, '.complete')).catch(() => undefined)) return final;
  const tmp = path.join(root, 'models', `.${process.pid}.${randomUUID()}.tmp`);
  await fs.mkdir(tmp, { recursive: true });
  try {
    for (const f of files) await fs.copyFile(await store.fetch(f.sha256), joinInside(tmp, f.path), fsConstants.COPYFILE_EXCL);
    await fs.writeFile(path.join(tmp, '.complete'), '');
    await fs.rename(tmp, final).catch(async (e: NodeJS.ErrnoException) => {
      // another process built it meanwhile: use theirs
      if (!(await fs.stat(path.join(final, '.complete')).catch(() => undefined))) throw e;
    });
    return final;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** A stored model file entry that is not one the registry could have written is refused, naming it. */
function storedModelFileProblem(f: ModelFile): void {
  const parsed = modelFile.safeParse(f);
  const name = (f as { path?: unknown }).path;
  const known = typeof name === 'string' && ((MODEL_METADATA_FILES as readonly string[]).includes(name) || isWeightFile(name));
  if (!parsed.success || !known)
    throw new DomainError(
      'PRECONDITION_FAILED',
      `the models row lists a file ${JSON.stringify(name)} that is not a model file name (${parsed.success ? 'not a metadata or weight file' : parsed.error.issues[0]?.message}); the row was edited outside Crucible: refusing to write it, import the model again`,
    );
}

/** A registered model as a Hugging Face directory on this host (what the loader and export read). */
export function modelDirectory(store: ArtifactStore, row: Pick<ModelRow, 'files'>, root: string): Promise<string> {
  return materializeFiles(store, row.files, root);
}

const TOKENIZER_FILES = new Set(['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'added_tokens.json', 'chat_template.jinja']);

/** The conversation the chat-template preview renders. */
export const PREVIEW_CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Tell me a one-line story about a cat.' },
  { role: 'assistant', content: 'A cat found a sunny spot and slept all afternoon.' },
  { role: 'user', content: 'Now make it rhyme.' },
];

export type ModelTokenizerInfo = { vocabSize: number; bos: number | null; eos: number | null; pad: number | null };
export type ChatTemplatePreview = { messages: ChatMessage[]; text: string; tokens: number } | { messages: ChatMessage[]; error: string };

// Inspections by the listing of the tokenizer files: a page view should not rebuild one. A
// limit failure is kept for a while too (each retry would cost a thread its whole time limit);
// other failures are retried on the next view.
const inspections = new Map<string, Promise<TokenizerInspection>>();
const LIMIT_FAILURE_KEPT_MS = 10 * 60_000;

function inspectionOf(store: ArtifactStore, row: ModelRow, root: string): Promise<TokenizerInspection> {
  const files = row.files.filter((f) => TOKENIZER_FILES.has(f.path));
  const key = listingSha256(files);
  let t = inspections.get(key);
  if (!t) {
    t = materializeFiles(store, files, root).then((dir) => inspectTokenizerIsolated(dir, PREVIEW_CONVERSATION));
    inspections.set(key, t);
    t.catch((e: unknown) => {
      if (e instanceof InspectionLimitError) setTimeout(() => inspections.get(key) === t && inspections.delete(key), LIMIT_FAILURE_KEPT_MS).unref();
      else inspections.delete(key);
    });
    while (inspections.size > 8) inspections.delete(inspections.keys().next().value!);
  }
  return t;
}

/**
 * A registered model with what its tokenizer says (vocabulary, special ids) and its chat
 * template applied to a short sample conversation (as transformers' apply_chat_template with
 * a generation prompt), both computed in an isolated thread with time and memory limits
 * (lib/policy/hf/isolated-inspection.ts), never on this process's event loop. A template
 * that refuses the sample (e.g. one without a system role), or that exceeds the limits, shows
 * its error.
 */
export async function showModel(
  db: Db,
  store: ArtifactStore,
  name: string,
  root: string,
): Promise<ModelRow & { tokenizer: ModelTokenizerInfo | null; preview: ChatTemplatePreview | null }> {
  const row = await getModel(db, name);
  let inspection: TokenizerInspection;
  try {
    inspection = await inspectionOf(store, row, root);
  } catch (e) {
    if (!(e instanceof InspectionLimitError)) throw e;
    return { ...row, tokenizer: null, preview: { messages: PREVIEW_CONVERSATION, error: e.message } };
  }
  const { preview, ...tokenizer } = inspection;
  return { ...row, tokenizer, preview: preview === null ? null : { messages: PREVIEW_CONVERSATION, ...preview } };
}

/** The artifact store and data directory this process uses for model files (closed by the caller). */
export function modelStore(db: Db): { store: ArtifactStore; root: string } {
  const root = dataDir();
  return { store: openArtifactStore(settings(), { dataDir: root, db }), root };
}

/** Run `fn` with this process's artifact store, closing it after. */
export async function withModelStore<T>(db: Db, fn: (store: ArtifactStore, root: string) => Promise<T>): Promise<T> {
  const { store, root } = modelStore(db);
  try {
    return await fn(store, root);
  } finally {
    await store.close();
  }
}

export type ModelRun = { id: string; name: string; status: string; createdAt: Date; suite: string; training: string };

/** The runs that train (or trained) the registered model `name`, newest first: what the model page lists. */
export async function runsOfModel(db: Db, name: string): Promise<ModelRun[]> {
  await getModel(db, name); // a clear NOT_FOUND for an unknown name
  const rows = await db
    .select({ id: runs.id, name: runs.name, status: runs.status, createdAt: runs.createdAt, config: runs.config })
    .from(runs)
    .where(sql`${runs.config}->'policy'->>'kind' = 'hf' and ${runs.config}->'policy'->>'model' = ${name}`)
    .orderBy(desc(runs.createdAt))
    .limit(200);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    createdAt: r.createdAt,
    suite: r.config.suite,
    training: r.config.policy.kind === 'hf' ? r.config.policy.training : 'byte',
  }));
}
