import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv } from '@/core/settings';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { writePeftAdapter } from '@/lib/policy/hf/export-peft';
import { loraSpecs } from '@/lib/policy/hf/lora';
import { readPeftAdapter } from '@/lib/policy/hf/lora-adapter';
import { readHfConfig } from '@/lib/policy/hf/model-dir';
import { CliError, parseFor, type Command } from './args';
import { STORIES260K_DIR } from '@/test/models';
import { runCrucible } from '@/test/cli';
import { freshDatabase } from '@/test/database';
import type { Database } from '@/db/client';
import { models } from '@/db/schema';
import { eq } from 'drizzle-orm';

const STORIES = STORIES260K_DIR;

let dir: string;
let chatDir: string;
let commands: Command[];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-models-cli-'));
  vi.stubEnv('CRUCIBLE_DATA_DIR', dir);
  commands = [...(await import('./policy')).commands, ...(await import('./models')).commands];
  // stories260K with a chat template added (it ships none)
  chatDir = path.join(dir, 'stories-chat');
  await fs.cp(STORIES, chatDir, { recursive: true });
  const tc = JSON.parse(await fs.readFile(path.join(STORIES, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  tc.chat_template =
    "{{ bos_token }}{% for m in messages %}{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ 'assistant:' }}{% endif %}";
  await fs.writeFile(path.join(chatDir, 'tokenizer_config.json'), JSON.stringify(tc));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Run `crucible <group> <argv>` in-process and return its parsed --json output. */
async function cli(name: string, argv: string[]): Promise<Record<string, unknown>> {
  const cmd = commands.find((c) => c.name === name)!;
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    chunks.push(String(s));
    return true;
  });
  try {
    expect(await cmd.run(parseFor(cmd, [...argv, '--json']))).toBe(0);
  } finally {
    spy.mockRestore();
  }
  return JSON.parse(chunks.join('')) as Record<string, unknown>;
}

describe('crucible policy sample --model / models inspect', () => {
  it('samples greedily from a Hugging Face directory: continuation ids, text, logprobs', async () => {
    const byText = await cli('policy sample', ['--model', STORIES, '--prompt', 'Once upon a time', '--max-new-tokens', '12', '--temperature', '0', '--cpu']);
    expect(byText.promptTokens).toEqual([1, 403, 407, 261, 378]);
    expect(byText.text).toBe(', there was a little girl named Lily. She');
    expect(byText.tokens).toHaveLength(12);
    expect((byText.logprobs as number[]).every((l) => l <= 0 && l > -20)).toBe(true);
    const byIds = await cli('policy sample', [
      '--model',
      STORIES,
      '--prompt-ids',
      '1,403,407,261,378',
      '--max-new-tokens',
      '12',
      '--temperature',
      '0',
      '--cpu',
    ]);
    expect(byIds.tokens).toEqual(byText.tokens);
    // Seeded sampling replays; a different seed differs.
    const seeded = (seed: string) =>
      cli('policy sample', ['--model', STORIES, '--prompt', 'The dog', '--max-new-tokens', '24', '--temperature', '1', '--seed', seed, '--cpu']);
    const [a, b, c] = [await seeded('1'), await seeded('1'), await seeded('2')];
    expect(a.tokens).toEqual(b.tokens);
    expect(a.tokens).not.toEqual(c.tokens);
  });

  it('--chat renders the prompt with the chat template', async () => {
    const out = await cli('policy sample', [
      '--model',
      chatDir,
      '--prompt',
      'Tell me a story',
      '--chat',
      '--max-new-tokens',
      '8',
      '--temperature',
      '0',
      '--cpu',
    ]);
    const policy = await HfPolicy.load(chatDir, { providers: ['cpu'] });
    try {
      const expected = policy.tokenizer.encode('<s>user: Tell me a story\nassistant:', { specialTokens: false });
      expect(out.promptTokens).toEqual(expected);
      expect(expected[0]).toBe(1);
      const [direct] = await policy.sample([expected], { maxNewTokens: 8, temperature: 0 });
      expect(out.tokens).toEqual(direct!.tokens);
    } finally {
      await policy.release();
    }
  });

  it('from any working directory: the template render thread and the import inspection find their files', async () => {
    // both threads require plain-JS helpers and packages by path; the CLI is run from wherever the user is
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-cwd-'));
    const r = await runCrucible(
      ['policy', 'sample', '--model', chatDir, '--prompt', 'Tell me a story', '--chat', '--max-new-tokens', '4', '--temperature', '0', '--cpu', '--json'],
      {},
      { cwd: elsewhere },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ promptTokens: expect.arrayContaining([1]) });
    const db = await freshDatabase();
    const imported = await runCrucible(
      ['models', 'import', chatDir, '--name', 'from-elsewhere', '--json'],
      { DATABASE_URL: db.url, CRUCIBLE_DATA_DIR: path.join(elsewhere, 'data') },
      { cwd: elsewhere },
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ name: 'from-elsewhere', chatTemplate: expect.stringContaining('assistant') });
  });

  it('refuses bad input with a message', async () => {
    const run = (argv: string[]) => {
      const cmd = commands.find((c) => c.name === 'policy sample')!;
      return cmd.run(parseFor(cmd, argv));
    };
    await expect(run(['--model', STORIES])).rejects.toThrow(/exactly one of --prompt or --prompt-ids/);
    await expect(run(['--model', STORIES, '--prompt-ids', '1,x'])).rejects.toThrow(/--prompt-ids must be comma-separated token ids/);
    await expect(run(['--model', STORIES, '--prompt-ids', '1,999'])).rejects.toThrow(/token id 999 is outside the model's vocabulary/);
    await expect(run(['--model', STORIES, '--prompt', 'hi', '--chat'])).rejects.toThrow(/no chat template/);
    await expect(run(['--model', dir, '--prompt', 'hi'])).rejects.toThrow(CliError);
    await expect(run(['--model', dir, '--prompt', 'hi'])).rejects.toThrow(/no config\.json/);
  });

  it('the real `crucible` binary dispatches `models inspect` and `policy sample --model`', async () => {
    const run = (args: string[]) =>
      promisify(execFile)('node', ['scripts/crucible.mjs', ...args], { env: childEnv({ CRUCIBLE_DATA_DIR: dir }), timeout: 60_000 });
    const inspected = JSON.parse((await run(['models', 'inspect', STORIES, '--json'])).stdout) as { architecture: string };
    expect(inspected.architecture).toBe('LlamaForCausalLM');
    const sampled = JSON.parse(
      (await run(['policy', 'sample', '--model', STORIES, '--prompt', 'Once upon a time', '--max-new-tokens', '5', '--temperature', '0', '--cpu', '--json']))
        .stdout,
    ) as { tokens: number[]; text: string; logprobs: number[] };
    expect(sampled).toMatchObject({ tokens: [432, 383, 286, 261, 376], text: ', there was a little' });
    expect(sampled.logprobs).toHaveLength(5);
  });

  it('models inspect describes the directory', async () => {
    const info = await cli('models inspect', [STORIES]);
    expect(info).toMatchObject({ architecture: 'LlamaForCausalLM', parameters: 260032, storedDtypes: { F32: 47 }, eosTokenIds: [2], chatTemplate: null });
  });
});

describe('crucible models import|list|show|export (the real binary, real Postgres, the local artifact store)', () => {
  let url: string;
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
    url = database.url;
  });
  const crucible = (args: string[]) => runCrucible(args, { DATABASE_URL: url, CRUCIBLE_DATA_DIR: path.join(dir, 'registry-data') });
  const ok = async (args: string[]) => {
    const r = await crucible(args);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  it('imports a directory, lists and shows it, and samples from it by name', async () => {
    const row = JSON.parse(await ok(['models', 'import', STORIES, '--name', 'stories260K', '--json'])) as Record<string, unknown>;
    expect(row).toMatchObject({
      name: 'stories260K',
      architecture: 'LlamaForCausalLM',
      parameters: 260032,
      dtype: 'F32',
      chatTemplate: null,
      createdBy: expect.stringMatching(/^cli:/),
    });
    await ok(['models', 'import', chatDir, '--name', 'stories-chat']);
    const listed = JSON.parse(await ok(['models', 'list', '--json'])) as { name: string }[];
    expect(listed.map((m) => m.name)).toEqual(['stories-chat', 'stories260K']);
    const text = await ok(['models', 'list']);
    expect(text).toMatch(/stories260K\s+LlamaForCausalLM\s+260,032\s+F32/);
    const shown = await ok(['models', 'show', 'stories260K']);
    expect(shown).toContain(`weights sha256   ${row.weightsSha256 as string}`);
    expect(shown).toContain('tokenizer        vocab 512, bos 1, eos 2, pad -');
    expect(shown).toContain('chat template    none');
    const chat = JSON.parse(await ok(['models', 'show', 'stories-chat', '--json'])) as { preview: { text: string } };
    expect(chat.preview.text).toMatch(/^<s>system: You are a helpful assistant\.\nuser: .*\nassistant:$/s);
    // by name, the same greedy continuation as from the directory (the files came back from the store by hash)
    const sampled = JSON.parse(
      await ok([
        'policy',
        'sample',
        '--model',
        'stories260K',
        '--prompt',
        'Once upon a time',
        '--max-new-tokens',
        '5',
        '--temperature',
        '0',
        '--cpu',
        '--json',
      ]),
    ) as { tokens: number[]; text: string };
    expect(sampled).toMatchObject({ tokens: [432, 383, 286, 261, 376], text: ', there was a little' });
    // each step is a CLI call; on a loaded CI host these took 33–60 s: the ceiling is a safety net
  }, 180_000);

  it('models sft --register: tunes a registered model on exported episodes and registers the result for a run to start from', async () => {
    const hf = await HfPolicy.load(STORIES);
    const prompt = hf.tokenizer.encode('Once upon a time');
    const reply = hf.tokenizer.encode(' the cat sat on the mat.', { specialTokens: false });
    await hf.release();
    const data = path.join(dir, 'export.jsonl');
    // as `crucible episodes export` writes one: the prompt masked, the sampled reply not
    await fs.writeFile(
      data,
      JSON.stringify({ tokens: { ids: [...prompt, ...reply], loss_mask: [...prompt.map(() => 0), ...reply.map(() => 1)], logprobs: [] } }) + '\n',
    );
    const out = path.join(dir, 'tuned');
    const r = JSON.parse(
      await ok(['models', 'sft', 'stories260K', '--data', data, '--out', out, '--register', 'stories-tuned', '--steps', '8', '--lr', '1e-3', '--json']),
    ) as { losses: number[]; registered: { name: string; weightsSha256: string } };
    expect(r.losses.at(-1)!).toBeLessThan(r.losses[0]!);
    expect(r.registered.name).toBe('stories-tuned');
    const listed = JSON.parse(await ok(['models', 'list', '--json'])) as { name: string; weightsSha256: string }[];
    const tuned = listed.find((m) => m.name === 'stories-tuned')!;
    expect(tuned.weightsSha256).toBe(r.registered.weightsSha256);
    expect(tuned.weightsSha256).not.toBe(listed.find((m) => m.name === 'stories260K')!.weightsSha256);
    // a taken name is refused before anything is trained over it
    const again = await crucible([
      'models',
      'sft',
      'stories260K',
      '--data',
      data,
      '--out',
      path.join(dir, 'tuned2'),
      '--register',
      'stories-tuned',
      '--steps',
      '1',
    ]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('a model named "stories-tuned" is already registered');
    await expect(fs.stat(path.join(dir, 'tuned2'))).rejects.toThrow(); // nothing was trained or written
  });

  it('refuses bad directories naming the file, taken names, unknown models and formats', async () => {
    const broken = path.join(dir, 'no-tokenizer');
    await fs.cp(STORIES, broken, { recursive: true });
    await fs.rm(path.join(broken, 'tokenizer.json'));
    const bad = await crucible(['models', 'import', broken, '--name', 'broken']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${broken}/tokenizer.json`);
    expect(await crucible(['models', 'import', STORIES])).toMatchObject({ code: 2, stderr: expect.stringMatching(/missing --name/) });
    expect(await crucible(['models', 'import', STORIES, '--name', 'stories260K'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/already registered/),
    });
    expect(await crucible(['models', 'import', STORIES, '--name', 'a b'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/model names are/) });
    expect(await crucible(['models', 'show', 'nope'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/no model named "nope"/) });
    expect(await crucible(['policy', 'sample', '--model', 'nope', '--prompt', 'x'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no model named "nope"/),
    });
    expect(await crucible(['models', 'export', 'stories260K', '--format', 'gguf', '--out', path.join(dir, 'x')])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--format must be one of hf, peft/),
    });
    expect(await crucible(['models', 'export', 'stories260K', '--format', 'peft', '--out', path.join(dir, 'x')])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no LoRA adapter/),
    });
    // each step is a CLI call; on a loaded CI host these took 33–60 s: the ceiling is a safety net
  }, 180_000);

  it('exports a Hugging Face directory that re-imports with identical logits', async () => {
    const out = path.join(dir, 'exported');
    const r = JSON.parse(await ok(['models', 'export', 'stories260K', '--format', 'hf', '--out', out, '--json'])) as {
      files: { path: string }[];
      dtypes: unknown;
    };
    expect(r.dtypes).toEqual({ F32: 47 });
    expect(r.files.map((f) => f.path)).toContain('model.safetensors');
    expect(await crucible(['models', 'export', 'stories260K', '--format', 'hf', '--out', out])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/is not empty/),
    });
    await ok(['models', 'import', out, '--name', 'stories-reimported']);
    const [a, b] = [await HfPolicy.load(STORIES, { providers: ['cpu'] }), await HfPolicy.load(out, { providers: ['cpu'] })];
    try {
      const prompt = [1, 403, 407, 261, 378, 432, 383];
      expect(Buffer.from((await b.logits(prompt)).buffer).equals(Buffer.from((await a.logits(prompt)).buffer))).toBe(true);
    } finally {
      await a.release();
      await b.release();
    }
    const again = JSON.parse(await ok(['models', 'show', 'stories-reimported', '--json'])) as { tokenizerSha256: string; parameters: number };
    const orig = JSON.parse(await ok(['models', 'show', 'stories260K', '--json'])) as { tokenizerSha256: string; parameters: number };
    expect(again.tokenizerSha256).toBe(orig.tokenizerSha256);
    expect(again.parameters).toBe(orig.parameters);
  });

  it('export refuses a models row whose file names the app role rewrote; nothing is written outside', async () => {
    const [row] = await database.db.select().from(models).where(eq(models.name, 'stories260K'));
    const escape = `escape-${process.pid}.sh`;
    // freshDatabase connects as the app role, which every worker host holds
    const files = row!.files.map((f) => (f.path === 'generation_config.json' ? { ...f, path: `../../../../../../../../tmp/${escape}` } : f));
    await database.db.update(models).set({ files }).where(eq(models.name, 'stories260K'));
    try {
      expect(await crucible(['models', 'export', 'stories260K', '--format', 'hf', '--out', path.join(dir, 'evil-out')])).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/the models row lists a file .* that is not a model file name/),
      });
      expect(await fs.stat(path.join('/tmp', escape)).catch(() => null)).toBeNull();
    } finally {
      await database.db.update(models).set({ files: row!.files }).where(eq(models.name, 'stories260K'));
    }
  });

  it('--adapter: exports a PEFT adapter or the merged model, and samples with it', async () => {
    // A LoRA adapter with nonzero B (what training produces), written as PEFT does.
    const lora = { rank: 2, alpha: 16, targetModules: ['q_proj', 'up_proj'] as ('q_proj' | 'up_proj')[] };
    let seed = 1;
    const tensors = new Map(
      loraSpecs(await readHfConfig(STORIES), lora).map((s) => {
        const data = Float32Array.from({ length: s.shape[0]! * s.shape[1]! }, () => ((seed = (seed * 48271) % 2147483647) / 2147483647 - 0.5) * 0.4);
        return [s.name, { shape: s.shape, data }];
      }),
    );
    const adapterDir = path.join(dir, 'adapter-src');
    await writePeftAdapter(adapterDir, { config: { r: 2, loraAlpha: 16, targetModules: lora.targetModules, baseModelNameOrPath: 'somewhere' }, tensors });

    const peftOut = path.join(dir, 'adapter-export');
    const r = JSON.parse(await ok(['models', 'export', 'stories260K', '--format', 'peft', '--adapter', adapterDir, '--out', peftOut, '--json'])) as {
      tensors: number;
    };
    expect(r.tensors).toBe(20);
    const back = await readPeftAdapter(peftOut);
    expect(back.config.baseModelNameOrPath).toBe('stories260K');
    for (const [n, t] of tensors) expect(back.tensors.get(n), n).toEqual(t);

    const mergedOut = path.join(dir, 'merged-export');
    await ok(['models', 'export', 'stories260K', '--format', 'hf', '--adapter', path.join(adapterDir, 'adapter_model.safetensors'), '--out', mergedOut]);
    const [adapted, merged] = [await HfPolicy.load(STORIES, { providers: ['cpu'] }), await HfPolicy.load(mergedOut, { providers: ['cpu'] })];
    try {
      const [base] = await adapted.sample([[1, 403, 407, 261, 378]], { temperature: 0, maxNewTokens: 12 });
      adapted.setAdapter(back);
      const prompt = [1, 403, 407, 261, 378, 432, 383];
      expect(Buffer.from((await merged.logits(prompt)).buffer).equals(Buffer.from((await adapted.logits(prompt)).buffer))).toBe(true);
      const [greedy] = await adapted.sample([[1, 403, 407, 261, 378]], { temperature: 0, maxNewTokens: 12 });
      const sampled = JSON.parse(
        await ok([
          'policy',
          'sample',
          '--model',
          'stories260K',
          '--adapter',
          adapterDir,
          '--prompt-ids',
          '1,403,407,261,378',
          '--max-new-tokens',
          '12',
          '--temperature',
          '0',
          '--cpu',
          '--json',
        ]),
      ) as { tokens: number[] };
      expect(sampled.tokens).toEqual(greedy!.tokens);
      expect(greedy!.tokens).not.toEqual(base!.tokens);
    } finally {
      await adapted.release();
      await merged.release();
    }

    expect(
      await crucible(['models', 'export', 'stories260K', '--format', 'peft', '--adapter', path.join(dir, 'nope'), '--out', path.join(dir, 'y')]),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/cannot use adapter .*nope: .*no such adapter/),
    });
  });
});
