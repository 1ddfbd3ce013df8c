import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '@/db/client';
import { auditLog, models } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { STORIES260K_DIR } from '@/test/models';
import { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { DatabaseArtifactBackend } from '@/lib/artifacts/backends/database';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';

// loaded after CRUCIBLE_DATA_DIR is set: settings are read once per process, and the router's
// artifact store lives under the data directory
let service: typeof import('./service');
let callerAs: typeof import('@/test/callers').callerAs;
let collectArtifactGarbage: typeof import('@/server/artifacts/gc').collectArtifactGarbage;
let settings: typeof import('@/core/settings').settings;

// The models registry against real Postgres and a real artifact store (the database backend,
// as several worker hosts share it): import, list/show through the tRPC router with its
// roles, audit rows, and a "second host" (its own cache and data directory) rebuilding the
// directory by hash and computing the same logits.

let database: Database;
let tmp: string;
let chatDir: string;
const sha = async (f: string) =>
  createHash('sha256')
    .update(await fs.readFile(f))
    .digest('hex');

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-models-svc-'));
  vi.stubEnv('CRUCIBLE_DATA_DIR', path.join(tmp, 'data'));
  vi.stubEnv('CRUCIBLE_ARTIFACT_BACKEND', 'database');
  // imports over the API read only under the import roots (docs/security.md, "Model import")
  vi.stubEnv('CRUCIBLE_IMPORT_ROOTS', `${path.dirname(STORIES260K_DIR)}:${tmp}`);
  database = await freshDatabase();
  vi.resetModules(); // a module imported above may have read the settings already
  service = await import('./service');
  ({ callerAs } = await import('@/test/callers'));
  ({ collectArtifactGarbage } = await import('@/server/artifacts/gc'));
  ({ settings } = await import('@/core/settings'));
  chatDir = path.join(tmp, 'stories-chat');
  await fs.cp(STORIES260K_DIR, chatDir, { recursive: true });
  const tc = JSON.parse(await fs.readFile(path.join(chatDir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  tc.chat_template =
    "{{ bos_token }}{% for m in messages %}{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ 'assistant:' }}{% endif %}";
  await fs.writeFile(path.join(chatDir, 'tokenizer_config.json'), JSON.stringify(tc));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await fs.rm(tmp, { recursive: true, force: true });
});

const hostStore = (name: string) =>
  new ArtifactStore({ backend: new DatabaseArtifactBackend(database.db, { host: name }), cacheDir: path.join(tmp, name, 'cache'), cacheBytes: 1 << 30 });

describe('models registry', () => {
  it('imports stories260K: metadata, hashes, files in the artifact store, an audit row', async () => {
    expect(settings().CRUCIBLE_DATA_DIR).toBe(path.join(tmp, 'data'));
    const op = await callerAs(database.db, 'operator', 'importer');
    const row = await op.models.import({ name: 'stories260K', dir: STORIES260K_DIR });
    expect(row).toMatchObject({
      name: 'stories260K',
      architecture: 'LlamaForCausalLM',
      parameters: 260032,
      dtype: 'F32',
      chatTemplate: null,
      tokenizerSha256: await sha(path.join(STORIES260K_DIR, 'tokenizer.json')),
      weightsSha256: await sha(path.join(STORIES260K_DIR, 'model.safetensors')),
      source: STORIES260K_DIR,
      createdBy: 'user:importer',
    });
    expect(row.config).toMatchObject({ hidden_size: 64, num_hidden_layers: 5 });
    // README.md, tokenizer_reference.json (test data) are not model files
    expect(row.files.map((f) => f.path)).toEqual([
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer.model',
      'tokenizer_config.json',
    ]);
    expect(row.bytes).toBe(row.files.reduce((s, f) => s + f.size, 0));
    const backend = new DatabaseArtifactBackend(database.db, { host: 'check' });
    for (const f of row.files) {
      expect(f.sha256).toBe(await sha(path.join(STORIES260K_DIR, f.path)));
      expect(await backend.has(f.sha256), f.path).toBe(true);
    }
    const audits = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'model.import'), eq(auditLog.targetId, row.id)));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actor: 'user:importer', targetType: 'model', details: { name: 'stories260K', parameters: 260032 } });
  });

  it('lists and shows for viewers; only operators and admins import', async () => {
    const viewer = await callerAs(database.db, 'viewer');
    expect((await viewer.models.list()).map((m) => m.name)).toContain('stories260K');
    const shown = await viewer.models.show({ name: 'stories260K' });
    expect(shown).toMatchObject({ architecture: 'LlamaForCausalLM', tokenizer: { vocabSize: 512, bos: 1, eos: 2, pad: null }, preview: null });
    await expect(viewer.models.import({ name: 'mine', dir: STORIES260K_DIR })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.models.show({ name: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/no model named "nope"/) });
    await expect(viewer.models.show({ name: '../x' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await database.db.select().from(models).where(eq(models.name, 'mine'))).toHaveLength(0);
  });

  it('refuses a taken name and bad directories, naming the missing or invalid file', async () => {
    const admin = await callerAs(database.db, 'admin');
    await expect(admin.models.import({ name: 'stories260K', dir: STORIES260K_DIR })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/a model named "stories260K" is already registered/),
    });
    const broken = async (name: string, edit: (dir: string) => Promise<void>) => {
      const dir = path.join(tmp, name);
      await fs.cp(STORIES260K_DIR, dir, { recursive: true });
      await edit(dir);
      return admin.models.import({ name, dir }).catch((e: { code: string; message: string }) => e);
    };
    expect(await broken('no-tokenizer', (d) => fs.rm(path.join(d, 'tokenizer.json')))).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/no-tokenizer\/tokenizer\.json/),
    });
    expect(await broken('no-weights', (d) => fs.rm(path.join(d, 'model.safetensors')))).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/no weights \(expected model\.safetensors/),
    });
    expect(await broken('bad-config', (d) => fs.writeFile(path.join(d, 'config.json'), JSON.stringify({ architectures: ['GPT2LMHeadModel'] })))).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/bad-config\/config\.json: .*is invalid/),
    });
    expect(await broken('no-config', (d) => fs.rm(path.join(d, 'config.json')))).toMatchObject({ message: expect.stringMatching(/no config\.json/) });
    expect(await broken('truncated', (d) => fs.truncate(path.join(d, 'model.safetensors'), 1000))).toMatchObject({
      message: expect.stringMatching(/truncated\/model\.safetensors: not a safetensors file/),
    });
    const names = (await database.db.select({ name: models.name }).from(models)).map((r) => r.name);
    expect(names).toEqual(['stories260K']);
  });

  it('a second host rebuilds the directory from the artifact store by hash and gets the same logits', async () => {
    const [row] = await database.db.select().from(models).where(eq(models.name, 'stories260K'));
    const other = hostStore('host-b');
    const dir = await service.modelDirectory(other, row!, path.join(tmp, 'host-b', 'data'));
    expect(dir.startsWith(path.join(tmp, 'host-b', 'data', 'models'))).toBe(true);
    expect((await fs.readdir(dir)).filter((f) => !f.startsWith('.')).sort()).toEqual(row!.files.map((f) => f.path).sort());
    expect(await service.describeModelDir(dir, row!.files)).toMatchObject({ weightsSha256: row!.weightsSha256, tokenizerSha256: row!.tokenizerSha256 });
    // built once: a second call reuses it
    expect(await service.modelDirectory(other, row!, path.join(tmp, 'host-b', 'data'))).toBe(dir);
    const prompt = [1, 403, 407, 261, 378];
    const logits = async (d: string) => {
      const p = await HfPolicy.load(d, { providers: ['cpu'] });
      try {
        return await p.logits(prompt);
      } finally {
        await p.release();
      }
    };
    expect(Buffer.from((await logits(dir)).buffer).equals(Buffer.from((await logits(STORIES260K_DIR)).buffer))).toBe(true);
  });

  it('renders the chat template preview through the model tokenizer', async () => {
    const store = hostStore('host-c');
    await service.importModel(database.db, store, { name: 'stories-chat', dir: chatDir }, 'test:svc');
    const shown = await service.showModel(database.db, store, 'stories-chat', path.join(tmp, 'host-c', 'data'));
    expect(shown.chatTemplate).toContain('add_generation_prompt');
    expect(shown.preview).toMatchObject({
      text: '<s>system: You are a helpful assistant.\nuser: Tell me a one-line story about a cat.\nassistant: A cat found a sunny spot and slept all afternoon.\nuser: Now make it rhyme.\nassistant:',
    });
    expect((shown.preview as { tokens: number }).tokens).toBeGreaterThan(20);
  });

  it('garbage collection keeps the files of registered models', async () => {
    const store = hostStore('host-gc');
    const r = await collectArtifactGarbage(database.db, store, { graceMs: 0, dryRun: true });
    const rows = await database.db.select({ files: models.files }).from(models);
    const modelShas = new Set(rows.flatMap((m) => m.files.map((f) => f.sha256)));
    expect(modelShas.size).toBeGreaterThan(5);
    expect(r.deleted.filter((a) => modelShas.has(a.sha256))).toEqual([]);
    expect(r.referenced).toBeGreaterThanOrEqual(modelShas.size);
  });
});
