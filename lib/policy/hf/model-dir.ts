import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { MODEL_METADATA_MAX_BYTES } from '@/core/models';
import { ConfigError, parseHfConfig, type HfModelConfig } from './config';
import { readModelText } from './model-file';
import { HfTokenizer } from './tokenizer';
import { checkHfWeights, countHfParams, loadHfWeights } from './weights';

/** A Hugging Face model directory read from a local path (no network). */
export type HfModelDir = {
  dir: string;
  config: HfModelConfig;
  /** float32 weights under their checkpoint names (f16 / bf16 widened). */
  weights: Map<string, Float32Array>;
  /** How many tensors were stored in each dtype (F32 / F16 / BF16). */
  storedDtypes: Record<string, number>;
  tokenizer: HfTokenizer;
  /** Token ids that end a generation: generation_config.json, else config.json, else the tokenizer's EOS. */
  eosTokenIds: number[];
  parameters: number;
};

const GenerationConfig = z.object({ eos_token_id: z.union([z.number().int(), z.array(z.number().int())]).nullish() }).loose();

async function readJsonFile(dir: string, name: 'config.json' | 'generation_config.json', what: string): Promise<unknown | undefined> {
  const file = path.join(dir, name);
  const text = await readModelText(dir, name, MODEL_METADATA_MAX_BYTES[name]);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: ${what} is not valid JSON (${(e as Error).message})`);
  }
}

/** Read and validate config.json only (cheap: no weights). */
export async function readHfConfig(dir: string): Promise<HfModelConfig> {
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new Error(`${dir}: not a directory (expected a Hugging Face model directory with config.json)`);
  const file = path.join(dir, 'config.json');
  const json = await readJsonFile(dir, 'config.json', 'the model config');
  if (json === undefined) throw new Error(`${dir}: no config.json (expected a Hugging Face model directory)`);
  try {
    return parseHfConfig(json);
  } catch (e) {
    if (e instanceof ConfigError) throw new Error(`${file}: ${e.message.replace(/^config\.json: /, '')}`);
    throw e;
  }
}

export async function loadHfModelDir(dir: string): Promise<HfModelDir> {
  const config = await readHfConfig(dir);
  const tokenizer = await HfTokenizer.load(dir);
  const { weights, dtypes } = await loadHfWeights(dir, config);
  return {
    dir,
    config,
    weights,
    storedDtypes: dtypes,
    tokenizer,
    eosTokenIds: await eosTokenIdsOf(dir, config, tokenizer.eos),
    parameters: countHfParams(config),
  };
}

/**
 * What loadHfModelDir checks apart from the tokenizer (config, generation config, every
 * weight's presence, shape and dtype from the safetensors headers), without reading any weight
 * data: an import's check, in bounded memory and time whatever the checkpoint's size. The
 * tokenizer, whose regexes and template are programs, is built off the caller's thread
 * (isolated-inspection.ts); `tokenizerEos` is what it found.
 */
export async function checkHfModelDir(dir: string, tokenizerEos?: number): Promise<Omit<HfModelDir, 'weights' | 'tokenizer'>> {
  const config = await readHfConfig(dir);
  const { dtypes } = await checkHfWeights(dir, config);
  return { dir, config, storedDtypes: dtypes, eosTokenIds: await eosTokenIdsOf(dir, config, tokenizerEos), parameters: countHfParams(config) };
}

async function eosTokenIdsOf(dir: string, config: HfModelConfig, tokenizerEos: number | undefined): Promise<number[]> {
  const genFile = path.join(dir, 'generation_config.json');
  const gen = await readJsonFile(dir, 'generation_config.json', 'the generation config');
  const parsedGen = gen === undefined ? undefined : GenerationConfig.safeParse(gen);
  if (parsedGen && !parsedGen.success) throw new Error(`${genFile}: eos_token_id is invalid (${parsedGen.error.issues[0]?.message})`);
  const genEos = parsedGen?.data.eos_token_id;
  return genEos != null
    ? Array.isArray(genEos)
      ? genEos
      : [genEos]
    : config.eosTokenIds.length
      ? config.eosTokenIds
      : tokenizerEos !== undefined
        ? [tokenizerEos]
        : [];
}
