import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv } from '@/core/settings';
import { HfPolicy } from '@/workers/policy/hf/hf-policy';
import { CliError, parseFor, type Command } from './args';
import { STORIES260K_DIR } from '@/test/models';

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
