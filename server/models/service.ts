import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { isWeightFile, MODEL_METADATA_FILES, type ModelFile } from '@/core/models';
import { settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { dataDir } from '@/db/open-database';
import { models } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { sha256OfFile, type ArtifactStore } from '@/workers/artifacts/artifact-store';
import { openArtifactStore } from '@/workers/artifacts/open-artifact-store';
import { loadHfModelDir } from '@/workers/policy/hf/model-dir';
import { openCheckpoint } from '@/workers/policy/hf/safetensors';
import { HfTokenizer, type ChatMessage } from '@/workers/policy/hf/tokenizer';

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
 * Validate a local model directory exactly as sampling loads it (config.json, tokenizer,
 * every weight's presence and shape: workers/policy/hf/model-dir.ts) and hash the files the
 * registry keeps. A bad directory is BAD_REQUEST with the loader's message, which names the
 * missing or invalid file.
 */
export async function describeModelDir(dir: string): Promise<ModelDirDescription> {
  let loaded;
  try {
    loaded = await loadHfModelDir(dir);
  } catch (e) {
    throw new DomainError('BAD_REQUEST', `${dir} is not a model directory Crucible can load: ${(e as Error).message}`);
  }
  const weightFiles = (await openCheckpoint(dir)).files.map((h) => path.basename(h.file));
  const names = new Set<string>(weightFiles);
  if (weightFiles.length > 1 || !weightFiles.includes('model.safetensors')) names.add('model.safetensors.index.json');
  const present = await fs.readdir(dir);
  for (const n of MODEL_METADATA_FILES) if (present.includes(n)) names.add(n);
  const files: (ModelFile & { file: string })[] = [];
  for (const n of [...names].sort()) {
    const file = path.join(dir, n);
    files.push({ path: n, file, ...(await sha256OfFile(file)) });
  }
  const weights = files.filter((f) => isWeightFile(f.path));
  const single = weights.length === 1 ? weights[0] : undefined;
  const config = JSON.parse(await fs.readFile(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  return {
    architecture: loaded.config.architecture,
    parameters: loaded.parameters,
    dtype: Object.keys(loaded.storedDtypes).sort().join('+'),
    tokenizerSha256: files.find((f) => f.path === 'tokenizer.json')!.sha256,
    weightsSha256: single ? single.sha256 : listingSha256(weights),
    chatTemplate: loaded.tokenizer.chatTemplate ?? null,
    config,
    files,
    bytes: files.reduce((s, f) => s + f.size, 0),
  };
}

/**
 * Register a model directory under `name`: validate it, publish its files to the artifact
 * store, record the row and its audit entry in one transaction. The name must be free.
 */
export async function importModel(db: Db, store: ArtifactStore, input: { name: string; dir: string }, actor: string): Promise<ModelRow> {
  const dir = path.resolve(input.dir);
  await refuseTaken(db, input.name);
  const d = await describeModelDir(dir);
  for (const f of d.files) {
    const ref = await store.publishFile(f.file);
    if (ref.sha256 !== f.sha256)
      throw new DomainError('CONFLICT', `${f.file} changed while it was imported (sha256 ${f.sha256} then ${ref.sha256}); import it again`);
  }
  const files = d.files.map(({ path: p, sha256, size }) => ({ path: p, sha256, size }));
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(models)
        .values({
          name: input.name,
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
        details: { name: input.name, architecture: d.architecture, parameters: d.parameters, dtype: d.dtype, weightsSha256: d.weightsSha256, source: dir },
      });
      return row!;
    });
  } catch (e) {
    // a concurrent import took the name between the check and the insert
    if ((e as { code?: string }).code === '23505' || (e as { cause?: { code?: string } }).cause?.code === '23505') await refuseTaken(db, input.name);
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
 * directory and renamed into place, so a half-built one is never used.
 */
export async function materializeFiles(store: ArtifactStore, files: ModelFile[], root: string): Promise<string> {
  const final = path.join(root, 'models', listingSha256(files).slice(0, 32));
  if (await fs.stat(path.join(final, '.complete')).catch(() => undefined)) return final;
  const tmp = path.join(root, 'models', `.${process.pid}.${randomUUID()}.tmp`);
  await fs.mkdir(tmp, { recursive: true });
  try {
    for (const f of files) await fs.copyFile(await store.fetch(f.sha256), path.join(tmp, f.path));
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

// Loaded tokenizers by the sha256 of tokenizer.json: a page view should not rebuild one.
const tokenizers = new Map<string, Promise<HfTokenizer>>();

async function tokenizerOf(store: ArtifactStore, row: ModelRow, root: string): Promise<HfTokenizer> {
  const key = listingSha256(row.files.filter((f) => TOKENIZER_FILES.has(f.path)));
  let t = tokenizers.get(key);
  if (!t) {
    t = materializeFiles(
      store,
      row.files.filter((f) => TOKENIZER_FILES.has(f.path)),
      root,
    ).then((dir) => HfTokenizer.load(dir));
    tokenizers.set(key, t);
    t.catch(() => tokenizers.delete(key));
    while (tokenizers.size > 8) tokenizers.delete(tokenizers.keys().next().value!);
  }
  return t;
}

/**
 * A registered model with what its tokenizer says (vocabulary, special ids) and its chat
 * template applied to a short sample conversation (the tokenizer's own `renderChat`, through
 * @huggingface/jinja, as transformers' apply_chat_template with a generation prompt). A
 * template that refuses the sample (e.g. one without a system role) shows its error.
 */
export async function showModel(
  db: Db,
  store: ArtifactStore,
  name: string,
  root: string,
): Promise<ModelRow & { tokenizer: ModelTokenizerInfo; preview: ChatTemplatePreview | null }> {
  const row = await getModel(db, name);
  const tok = await tokenizerOf(store, row, root);
  const tokenizer = { vocabSize: tok.vocabSize, bos: tok.bos ?? null, eos: tok.eos ?? null, pad: tok.pad ?? null };
  if (!row.chatTemplate) return { ...row, tokenizer, preview: null };
  let preview: ChatTemplatePreview;
  try {
    const text = tok.renderChat(PREVIEW_CONVERSATION, { addGenerationPrompt: true });
    preview = { messages: PREVIEW_CONVERSATION, text, tokens: tok.encode(text, { specialTokens: false }).length };
  } catch (e) {
    preview = { messages: PREVIEW_CONVERSATION, error: (e as Error).message };
  }
  return { ...row, tokenizer, preview };
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
