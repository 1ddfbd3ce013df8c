import { z } from 'zod';
import { HfPolicy } from '@/workers/policy/hf/hf-policy';
import type { Provider } from '@/workers/policy/onnx-session';
import { CliError, intOption, output, type Command } from './args';

// Hugging Face model directories: `models inspect DIR` and the `policy sample --model DIR`
// path. Registering models in the database (`models import|list|show`) comes later.

async function loadModel(dir: unknown, usage: string, cpu: boolean): Promise<HfPolicy> {
  if (typeof dir !== 'string' || !dir) throw new CliError(`missing model DIR (a local Hugging Face model directory)\nusage: ${usage}`);
  try {
    return await HfPolicy.load(dir, { providers: cpu ? (['cpu'] as Provider[]) : undefined });
  } catch (e) {
    throw new CliError(`cannot load model ${dir}: ${(e as Error).message}`, 1);
  }
}

function promptIds(v: unknown): number[] {
  const parts = String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const ids = parts.map(Number);
  if (!ids.length || ids.some((n) => !Number.isInteger(n) || n < 0))
    throw new CliError(`--prompt-ids must be comma-separated token ids, e.g. 1,2,3; got "${String(v)}"`);
  return ids;
}

export const hfSampleUsage =
  'crucible policy sample --model DIR (--prompt TEXT | --prompt-ids 1,2,3) [--chat] [--max-new-tokens 64] [--temperature 1] [--top-p 1] [--top-k 0] [--seed 0] [--cpu] [--json]';

/** `policy sample --model DIR`: one completion from a Hugging Face model directory. */
export async function sampleHfModel(values: Record<string, unknown>): Promise<number> {
  const prompts = (values.prompt as string[] | undefined) ?? [];
  if (prompts.length > 1) throw new CliError(`--model takes one --prompt\nusage: ${hfSampleUsage}`);
  const hasText = prompts.length > 0;
  const hasIds = values['prompt-ids'] !== undefined;
  if (hasText === hasIds) throw new CliError(`give exactly one of --prompt or --prompt-ids\nusage: ${hfSampleUsage}`);
  if (values.chat && values['prompt-ids'] !== undefined)
    throw new CliError('--chat renders --prompt TEXT with the chat template; it does not apply to --prompt-ids');
  const ids = values['prompt-ids'] !== undefined ? promptIds(values['prompt-ids']) : undefined;
  const policy = await loadModel(values.model, hfSampleUsage, !!values.cpu);
  try {
    const opts = {
      maxNewTokens: intOption(values['max-new-tokens'], 'max-new-tokens') ?? 64,
      temperature: intOption(values.temperature, 'temperature'),
      topP: intOption(values['top-p'], 'top-p'),
      topK: intOption(values['top-k'], 'top-k'),
      seed: intOption(values.seed, 'seed') ?? 0,
    };
    let prompt: number[];
    try {
      prompt = ids ?? (values.chat ? policy.tokenizer.encodeChat([{ role: 'user', content: prompts[0]! }]) : policy.tokenizer.encode(prompts[0]!));
    } catch (e) {
      throw new CliError(`cannot build the prompt: ${(e as Error).message}`, 1);
    }
    let c;
    try {
      [c] = await policy.sample([prompt], opts);
    } catch (e) {
      throw new CliError(e instanceof z.ZodError ? z.prettifyError(e) : (e as Error).message);
    }
    const result = { tokens: c!.tokens, text: c!.text, logprobs: c!.logprobs, promptTokens: prompt, finishReason: c!.finishReason, provider: policy.provider };
    output(
      !!values.json,
      result,
      () => `${result.text}\n[${result.tokens.length} tokens, ${result.finishReason}, logprob ${result.logprobs.reduce((a, b) => a + b, 0).toFixed(2)}]`,
    );
    return 0;
  } finally {
    await policy.release();
  }
}

const inspectUsage = 'crucible models inspect DIR [--json]';
const inspect: Command = {
  name: 'models inspect',
  summary: 'read a local Hugging Face model directory: architecture, shape, parameters, dtypes, tokenizer, chat template',
  usage: inspectUsage,
  options: { json: { type: 'boolean' } },
  run: async ({ values, positionals }) => {
    const policy = await loadModel(positionals[0], inspectUsage, true);
    const m = policy.model;
    const info = {
      dir: m.dir,
      architecture: m.config.architecture,
      parameters: m.parameters,
      storedDtypes: m.storedDtypes,
      config: m.config,
      tokenizer: { vocabSize: policy.tokenizer.vocabSize, bos: policy.tokenizer.bos, eos: policy.tokenizer.eos, pad: policy.tokenizer.pad },
      eosTokenIds: m.eosTokenIds,
      chatTemplate: policy.tokenizer.chatTemplate ?? null,
    };
    const c = m.config;
    output(!!values.json, info, () =>
      [
        `${m.dir}`,
        `architecture  ${c.architecture}`,
        `parameters    ${m.parameters.toLocaleString()} (stored ${Object.entries(m.storedDtypes)
          .map(([d, n]) => `${n} ${d}`)
          .join(', ')} tensors)`,
        `shape         hidden=${c.hiddenSize} layers=${c.nLayers} heads=${c.nHeads} kv-heads=${c.nKvHeads} head-dim=${c.headDim} mlp=${c.intermediateSize} vocab=${c.vocabSize} context=${c.maxPositionEmbeddings}`,
        `rope          theta=${c.ropeTheta} scaling=${c.ropeScaling.type}`,
        `head          ${c.tieWordEmbeddings ? 'tied to the embedding' : 'lm_head'}`,
        `tokenizer     vocab ${info.tokenizer.vocabSize}, bos ${info.tokenizer.bos ?? '-'}, eos ${m.eosTokenIds.join('/') || '-'}`,
        `chat template ${info.chatTemplate ? `${info.chatTemplate.length} characters` : 'none'}`,
      ].join('\n'),
    );
    await policy.release();
    return 0;
  },
};

export const commands: Command[] = [inspect];
