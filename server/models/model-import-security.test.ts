import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelFile } from '@/core/models';
import type { Database } from '@/db/client';
import { models } from '@/db/schema';
import { freshDatabase } from '@/test/database';
import { STORIES260K_DIR } from '@/test/models';
import { ArtifactStore } from '@/lib/artifacts/artifact-store';
import { DatabaseArtifactBackend } from '@/lib/artifacts/backends/database';

// Model import as an attacker meets it (issue 31, docs/security.md "Model import"): a downloaded
// model directory is untrusted (git keeps symlinks), `dir` over the API is untrusted, and the
// `models` row is writable by the app role every worker host holds. Real Postgres as the app
// role, a real artifact store, real files, links and FIFOs.

let service: typeof import('./service');
let callerAs: typeof import('@/test/callers').callerAs;
let database: Database;
let tmp: string;
let roots: string;
let secret: string;
const SECRET = 'superuser-password-3f1c9e';

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-model-sec-'));
  roots = path.join(tmp, 'imports');
  await fs.mkdir(roots);
  secret = path.join(tmp, 'data', 'pg.password');
  await fs.mkdir(path.dirname(secret), { recursive: true });
  await fs.writeFile(secret, SECRET);
  vi.stubEnv('CRUCIBLE_DATA_DIR', path.join(tmp, 'data'));
  vi.stubEnv('CRUCIBLE_ARTIFACT_BACKEND', 'database');
  vi.stubEnv('CRUCIBLE_IMPORT_ROOTS', roots);
  database = await freshDatabase();
  vi.resetModules();
  service = await import('./service');
  ({ callerAs } = await import('@/test/callers'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await fs.rm(tmp, { recursive: true, force: true });
});

const store = () =>
  new ArtifactStore({ backend: new DatabaseArtifactBackend(database.db, { host: 'sec' }), cacheDir: path.join(tmp, 'cache'), cacheBytes: 1 << 30 });

/** A copy of stories260K under the import roots, with `edit` applied. */
async function modelDir(name: string, edit: (dir: string) => Promise<void> = async () => {}): Promise<string> {
  const dir = path.join(roots, name);
  await fs.cp(STORIES260K_DIR, dir, { recursive: true });
  await edit(dir);
  return dir;
}

const setTemplate = async (dir: string, template: string) => {
  const file = path.join(dir, 'tokenizer_config.json');
  const tc = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  tc.chat_template = template;
  await fs.writeFile(file, JSON.stringify(tc));
};

/** `work`'s result and how many times this thread's event loop turned meanwhile (work on another thread leaves it free). */
async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let spinning = true;
  const spin = () => {
    turns++;
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { result: await work(), turns };
  } finally {
    spinning = false;
  }
}

const refusal = async (p: Promise<unknown>) => {
  const e = (await p.then(
    () => null,
    (err: unknown) => err,
  )) as { code?: string; message: string } | null;
  expect(e, 'the import was accepted').not.toBeNull();
  return e!;
};

describe('model import: which directories (API under CRUCIBLE_IMPORT_ROOTS, as task import)', () => {
  it('an API import outside the roots is refused, with the same answer whether the path exists or not', async () => {
    const op = await callerAs(database.db, 'operator');
    const existing = await refusal(op.models.import({ name: 'etc', dir: path.join(tmp, 'data') }));
    const missing = await refusal(op.models.import({ name: 'nope', dir: path.join(tmp, 'data', 'no-such-dir') }));
    for (const e of [existing, missing]) {
      expect(e.code).toBe('BAD_REQUEST');
      expect(e.message).toMatch(/is outside the directories imports may read: CRUCIBLE_IMPORT_ROOTS/);
      expect(e.message).not.toMatch(/not a directory|no config\.json|ENOENT/);
    }
    // the two answers differ only in the path they repeat back
    expect(missing.message.replace('/no-such-dir', '')).toBe(existing.message);
    // a link inside the roots to a directory outside them is judged by where it leads
    await fs.symlink(path.join(tmp, 'data'), path.join(roots, 'data-link'));
    expect((await refusal(op.models.import({ name: 'linked', dir: path.join(roots, 'data-link') }))).message).toMatch(
      /outside the directories imports may read/,
    );
  });

  it('under the roots an operator imports over the API; the in-process CLI may name any directory', async () => {
    const op = await callerAs(database.db, 'operator');
    const dir = await modelDir('plain');
    expect(await op.models.import({ name: 'plain', dir })).toMatchObject({ name: 'plain', parameters: 260032 });
    const outside = path.join(tmp, 'outside-model');
    await fs.cp(STORIES260K_DIR, outside, { recursive: true });
    const row = await service.importModel(database.db, store(), { name: 'cli-outside', dir: outside }, 'test:cli');
    expect(row.source).toBe(outside);
  });
});

describe('model import: files are not followed out of the directory, nor read forever', () => {
  it("a chat_template.jinja linked to the server's password file is refused, naming it; the secret is nowhere", async () => {
    const op = await callerAs(database.db, 'operator');
    const dir = await modelDir('linked-template', async (d) => fs.symlink(secret, path.join(d, 'chat_template.jinja')));
    const e = await refusal(op.models.import({ name: 'linked-template', dir }));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/chat_template\.jinja is a symbolic link that points outside the model directory/);
    expect(e.message).not.toContain(SECRET);
    // refused for the in-process CLI too: the directory, not the caller, is untrusted
    await expect(service.importModel(database.db, store(), { name: 'linked-template-cli', dir }, 'test:cli')).rejects.toThrow(/outside the model directory/);
    const rows = await database.db.select().from(models);
    expect(JSON.stringify(rows)).not.toContain(SECRET);
  });

  it('links for every kept file are checked (tokenizer_config.json, a relative ../ link, the weights)', async () => {
    for (const [name, target] of [
      ['tokenizer_config.json', secret],
      ['config.json', `../../data/pg.password`],
      ['model.safetensors', path.join(STORIES260K_DIR, 'model.safetensors')],
    ] as const) {
      const dir = await modelDir(`link-${name}`, async (d) => {
        await fs.rm(path.join(d, name));
        await fs.symlink(target, path.join(d, name));
      });
      const e = await refusal(service.importModel(database.db, store(), { name: `link-${name.replace(/[^a-z]/g, '')}`, dir }, 'test:cli'));
      expect(e.message).toContain(`${name} is a symbolic link that points outside the model directory`);
    }
  });

  it("a Hugging Face hub cache snapshot (every file a link into the repository's blobs/) imports", async () => {
    const repo = path.join(roots, 'hub', 'models--karpathy--stories260K');
    const snapshot = path.join(repo, 'snapshots', '0123abcd');
    await fs.mkdir(path.join(repo, 'blobs'), { recursive: true });
    await fs.mkdir(snapshot, { recursive: true });
    for (const f of await fs.readdir(STORIES260K_DIR)) {
      const bytes = await fs.readFile(path.join(STORIES260K_DIR, f));
      const blob = createHash('sha256').update(bytes).digest('hex');
      await fs.writeFile(path.join(repo, 'blobs', blob), bytes);
      await fs.symlink(`../../blobs/${blob}`, path.join(snapshot, f));
    }
    const op = await callerAs(database.db, 'operator');
    const row = await op.models.import({ name: 'hub-snapshot', dir: snapshot });
    const plain = (await database.db.select().from(models).where(eq(models.name, 'plain')))[0]!;
    expect(row.weightsSha256).toBe(plain.weightsSha256);
    expect(row.files).toEqual(plain.files);
  });

  it('a FIFO, a link to /dev/zero and a directory in place of a file are refused, not read', async () => {
    const fifo = await modelDir('fifo', async (d) => {
      await fs.rm(path.join(d, 'generation_config.json'));
      execFileSync('mkfifo', [path.join(d, 'generation_config.json')]);
    });
    expect((await refusal(service.importModel(database.db, store(), { name: 'fifo', dir: fifo }, 'test:cli'))).message).toMatch(
      /generation_config\.json is not a regular file/,
    );
    const zero = await modelDir('zero', async (d) => {
      await fs.rm(path.join(d, 'tokenizer.model'));
      await fs.symlink('/dev/zero', path.join(d, 'tokenizer.model'));
    });
    expect((await refusal(service.importModel(database.db, store(), { name: 'zero', dir: zero }, 'test:cli'))).message).toMatch(
      /tokenizer\.model is a symbolic link that points outside the model directory/,
    );
    const folder = await modelDir('folder', async (d) => {
      await fs.rm(path.join(d, 'special_tokens_map.json'));
      await fs.mkdir(path.join(d, 'special_tokens_map.json'));
    });
    expect((await refusal(service.importModel(database.db, store(), { name: 'folder', dir: folder }, 'test:cli'))).message).toMatch(
      /special_tokens_map\.json is not a regular file/,
    );
  });

  it('metadata files over their size cap are refused before they are read', async () => {
    const big = await modelDir('big-config', async (d) => {
      const config = await fs.readFile(path.join(d, 'config.json'), 'utf8');
      await fs.writeFile(path.join(d, 'config.json'), config.replace('{', '{' + ' '.repeat(2 * 1024 * 1024)));
    });
    expect((await refusal(service.importModel(database.db, store(), { name: 'big-config', dir: big }, 'test:cli'))).message).toMatch(
      /config\.json is \d+ bytes; a config\.json may have at most 1048576 bytes, so it was not read/,
    );
  });
});

describe('model import: weights are copied only as large as their header says, and only if they fit', () => {
  /** A safetensors header declaring `bytes` of data (one F32 tensor), the file sized by `fileBytes`. */
  async function sparseWeights(dir: string, bytes: number, fileBytes: (declared: number) => number) {
    const json = Buffer.from(JSON.stringify({ w: { dtype: 'F32', shape: [bytes / 4], data_offsets: [0, bytes] } }));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    const file = path.join(dir, 'model.safetensors');
    await fs.writeFile(file, Buffer.concat([len, json]));
    await fs.truncate(file, fileBytes(8 + json.length + bytes));
  }

  it('a weight file with bytes past its last tensor (a sparse 1 TiB tail) is refused before it is copied', async () => {
    const dir = await modelDir('trailing', (d) => sparseWeights(d, 1024, (declared) => declared + 2 ** 40));
    const e = await refusal(service.importModel(database.db, store(), { name: 'trailing', dir }, 'test:cli'));
    expect(e.message).toMatch(/model\.safetensors is \d+ bytes but its header declares \d+; a safetensors file holds exactly its tensors/);
  });

  it('a checkpoint larger than the free disk (a sparse 8 TiB file) is refused before anything is copied', async () => {
    const dir = await modelDir('huge', (d) => sparseWeights(d, 2 ** 43, (declared) => declared));
    const e = await refusal(service.importModel(database.db, store(), { name: 'huge', dir }, 'test:cli'));
    expect(e.message).toMatch(/needs about \d+ bytes free under .* and \d+ are; free some space or import elsewhere/);
    expect(await fs.readdir(path.join(tmp, 'data', 'tmp'))).toEqual([]);
  });

  it('a config.json or chat template holding a NUL character is a 400 naming it, not a 500', async () => {
    const op = await callerAs(database.db, 'operator');
    const dir = await modelDir('nul-config', async (d) => {
      const config = JSON.parse(await fs.readFile(path.join(d, 'config.json'), 'utf8')) as Record<string, unknown>;
      await fs.writeFile(path.join(d, 'config.json'), JSON.stringify({ ...config, note: 'a\u0000b' }));
    });
    const e = await refusal(op.models.import({ name: 'nul-config', dir }));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/config\.json\.note contains a NUL character/);
  });
});

describe('stored names: a models row edited by the app role cannot write outside the model directory', () => {
  it('a file path of ../../… or a non-model name in the row is refused on the way out; nothing is written', async () => {
    const [row] = await database.db.select().from(models).where(eq(models.name, 'plain'));
    const evilRoot = path.join(tmp, 'host-evil');
    for (const bad of ['../../../../escaped.sh', 'run.sh', '.complete']) {
      const files: ModelFile[] = row!.files.map((f) => (f.path === 'generation_config.json' ? { ...f, path: bad } : f));
      // the app role (what freshDatabase connects as) rewrites the row
      await database.db.update(models).set({ files }).where(eq(models.name, 'plain'));
      const [edited] = await database.db.select().from(models).where(eq(models.name, 'plain'));
      await expect(service.modelDirectory(store(), edited!, evilRoot)).rejects.toThrow(/the models row lists a file .* that is not a model file name/);
    }
    await database.db.update(models).set({ files: row!.files }).where(eq(models.name, 'plain'));
    expect(await fs.readdir(tmp)).not.toContain('escaped.sh');
    const written = await fs.readdir(path.join(evilRoot, 'models')).catch(() => [] as string[]);
    expect(written.filter((n) => !n.startsWith('.'))).toEqual([]);
    // the untouched row still materialises
    expect(await fs.readdir(await service.modelDirectory(store(), row!, evilRoot))).toContain('generation_config.json');
  });
});

describe('chat templates and tokenizers run within limits, off the web thread', () => {
  const LOOP = "{% for i in range(4000000) %}{{ i }}{% endfor %}{{ messages[0]['content'] }}";
  const GROW = "{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}";

  it('a template that loops or grows without bound is refused at import, with a message that says so', async () => {
    for (const [name, template] of [
      ['loop', LOOP],
      ['grow', GROW],
      ['loop-small-range', '{% for i in range(1000000) %}{% for j in range(1000000) %}{{ j }}{% endfor %}{% endfor %}'],
    ] as const) {
      const dir = await modelDir(`template-${name}`, (d) => setTemplate(d, template));
      const e = await refusal(service.importModel(database.db, store(), { name: `template-${name}`, dir }, 'test:cli'));
      expect(e.message).toMatch(/the chat template (took more than|asked for range|produced more than)/);
      expect(e.message).toMatch(/it loops or builds text without bound/);
    }
  });

  it('a template swapped into a stored row shows its error on the model page, while the event loop keeps turning', async () => {
    const ok = await modelDir('swap-later', (d) => setTemplate(d, "{% for m in messages %}{{ m['content'] }}{% endfor %}"));
    const row = await service.importModel(database.db, store(), { name: 'swap-later', dir: ok }, 'test:cli');
    // the app role publishes a looping tokenizer_config.json and points the row at it
    await setTemplate(ok, '{% for i in range(1999999) %}{% for j in range(1999999) %}{{ j }}{% endfor %}{% endfor %}');
    const s = store();
    const ref = await s.publishFile(path.join(ok, 'tokenizer_config.json'));
    const files = row.files.map((f) => (f.path === 'tokenizer_config.json' ? { path: f.path, sha256: ref.sha256, size: ref.size } : f));
    await database.db.update(models).set({ files }).where(eq(models.name, 'swap-later'));
    const { result: shown, turns } = await loopTurnsDuring(() => service.showModel(database.db, s, 'swap-later', path.join(tmp, 'data')));
    // whichever limit it reaches first on this host: steps, or the time limit on a loaded one
    expect(shown.preview).toMatchObject({ error: expect.stringMatching(/the chat template (took more than 2000000 steps|ran longer than 5000 ms)/) });
    // the render ran on another thread: this one kept serving (a synchronous render would give 0-1 turns)
    expect(turns).toBeGreaterThan(10);
  });

  it('a tokenizer.json whose pre-tokenizer regex backtracks exponentially is stopped by the thread time limit', async () => {
    const { inspectTokenizerIsolated, InspectionLimitError, DEFAULT_INSPECTION_LIMITS } = await import('@/lib/policy/hf/isolated-inspection');
    const dir = await modelDir('redos', async (d) => {
      const tj = JSON.parse(await fs.readFile(path.join(d, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
      tj.pre_tokenizer = { type: 'Split', pattern: { Regex: '(a+)+$' }, behavior: 'Isolated', invert: false };
      await fs.writeFile(path.join(d, 'tokenizer.json'), JSON.stringify(tj));
    });
    const { result: err, turns } = await loopTurnsDuring(() =>
      inspectTokenizerIsolated(dir, service.PREVIEW_CONVERSATION, { ...DEFAULT_INSPECTION_LIMITS, timeoutMs: 3000 }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(InspectionLimitError);
    expect((err as Error).message).toMatch(/took longer than 3000 ms .* a tokenizer\.json regex that backtracks without bound is refused/);
    expect(turns).toBeGreaterThan(10);
  });
});
