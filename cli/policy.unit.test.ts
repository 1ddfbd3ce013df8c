import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliError, parseFor } from './args';
import { BYTE_TOKENIZER, Tokenizer } from '@/lib/policy/tokenizer';

let dir: string;
let commands: (typeof import('./policy'))['commands'];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-policy-cli-'));
  // the CLI is an entry point: it reads CRUCIBLE_DATA_DIR through settings(), parsed once per
  // process (per test file here), so the variable is set like a shell would, before anything
  // loads them
  vi.stubEnv('CRUCIBLE_DATA_DIR', dir);
  ({ commands } = await import('./policy'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Run `crucible policy <argv>` in-process and return its parsed --json output. */
async function cli(argv: string[]): Promise<unknown> {
  const cmd = commands.find((c) => c.name === `policy ${argv[0]}`);
  if (!cmd) throw new Error(`no command ${argv[0]}`);
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    chunks.push(String(s));
    return true;
  });
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const code = await cmd.run(
      parseFor(
        cmd,
        [...argv.slice(1), '--json', '--cpu'].filter((a) => a !== '--cpu' || cmd.options?.cpu),
      ),
    );
    expect(code).toBe(0);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return JSON.parse(chunks.join(''));
}

describe('crucible policy CLI', () => {
  it('init, sft, sample, inspect, export', async () => {
    const created = (await cli(['init', 'toy', '--d-model', '32', '--layers', '1', '--heads', '2', '--max-seq', '32', '--lr', '1e-2'])) as {
      version: number;
      sha256: string;
      parameters: number;
    };
    expect(created.version).toBe(1);
    expect(created.parameters).toBeGreaterThan(10_000);
    await expect(cli(['init', 'toy'])).rejects.toThrow(/already exists/);

    const data = path.join(dir, 'demos.jsonl');
    await fs.writeFile(data, '{"prompt":"ping ","completion":"pong"}\n{"prompt":"1+1=","completion":"2"}\n');
    const trained = (await cli(['sft', 'toy', '--data', data, '--steps', '60', '--batch', '2'])) as {
      version: number;
      steps: { loss: number; provider: string }[];
    };
    expect(trained.version).toBe(2);
    expect(trained.steps.at(-1)!.loss).toBeLessThan(0.1);
    expect(trained.steps[0]!.provider).toBe('cpu');

    const samples = (await cli(['sample', 'toy', '--prompt', 'ping ', '--temperature', '0', '--max-new-tokens', '8'])) as {
      text: string;
      finishReason: string;
      logprobs: number[];
    }[];
    expect(samples[0]!.text).toBe('pong');
    expect(samples[0]!.finishReason).toBe('eos');

    const info = (await cli(['inspect', 'toy'])) as { step: number; versions: { version: number }[]; sha256: string };
    expect(info.step).toBe(60);
    expect(info.versions.map((v) => v.version)).toEqual([1, 2]);

    const out = path.join(dir, 'toy.onnx');
    const exported = (await cli(['export', 'toy', '--out', out])) as { bytes: number };
    expect(exported.bytes).toBe((await fs.stat(out)).size);
  });

  it('sft on exported episodes: their token view as it is, the loss on the assistant tokens only', async () => {
    await cli(['init', 'agent', '--d-model', '32', '--layers', '1', '--heads', '2', '--max-seq', '64', '--lr', '1e-2']);
    const tok = new Tokenizer();
    // as `crucible episodes export` writes a byte-model run's episode: prompt and tool text masked, the reply not
    const record = (prompt: string, reply: string, tool: string) => {
      const p = tok.encode(prompt, { bos: true });
      const r = [...tok.encode(reply), BYTE_TOKENIZER.eos];
      const t = tok.encode(tool);
      return {
        messages: [],
        tokens: { ids: [...p, ...r, ...t], loss_mask: [...p.map(() => 0), ...r.map(() => 1), ...t.map(() => 0)], logprobs: [] },
        reward: 1,
      };
    };
    const data = path.join(dir, 'episodes.jsonl');
    await fs.writeFile(data, [record('fix: ', 'submit', ' ok'), record('go: ', 'ls', ' a.py')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const trained = (await cli(['sft', 'agent', '--data', data, '--steps', '80', '--batch', '2'])) as { steps: { loss: number }[] };
    // near 0 only when the loss is on the replies: the masked prompts differ in their first byte (f or g),
    // which nothing predicts, so a loss over every token stays above ln 2 / 17 ≈ 0.04
    expect(trained.steps.at(-1)!.loss).toBeLessThan(0.01);
    const [sampled] = (await cli(['sample', 'agent', '--prompt', 'fix: ', '--temperature', '0', '--max-new-tokens', '10'])) as { text: string }[];
    expect(sampled!.text).toBe('submit'); // the reply was learned, not the masked tool text after it
    // an episode sampled with another tokenizer (ids past the byte vocabulary) is refused by line
    const foreign = path.join(dir, 'foreign.jsonl');
    await fs.writeFile(foreign, JSON.stringify({ tokens: { ids: [256, 151_643, 12], loss_mask: [0, 1, 1] } }) + '\n');
    await expect(cli(['sft', 'agent', '--data', foreign])).rejects.toThrow(/foreign.jsonl 1: token id 151643 is past this model's vocabulary \(259\)/);
  });

  it('explains bad input', async () => {
    await expect(cli(['sample', 'missing', '--prompt', 'x'])).rejects.toThrow(CliError);
    await expect(cli(['sample', 'missing', '--prompt', 'x'])).rejects.toThrow(/policy init missing/);
    const bad = path.join(dir, 'bad.jsonl');
    await fs.writeFile(bad, '{"prompt": 1}\n');
    await expect(cli(['init', 'other'])).resolves.toBeTruthy();
    await expect(cli(['sft', 'other', '--data', bad])).rejects.toThrow(/bad.jsonl:1/);
  });
});
