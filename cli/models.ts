import { sftCommand } from './models-sft';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { EXPORT_FORMATS, modelName, PRECISIONS, type Precision } from '@/core/models';
import { getModel, modelDirectory, withModelStore, type ModelRow } from '@/server/models/service';
import { exportHfDirectory } from '@/lib/policy/hf/export-hf';
import { mergeLora, writePeftAdapter } from '@/lib/policy/hf/export-peft';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { readPeftAdapter, type LoraAdapter } from '@/lib/policy/hf/lora-adapter';
import { readHfConfig } from '@/lib/policy/hf/model-dir';
import { loadHfWeights } from '@/lib/policy/hf/weights';
import type { HfModelConfig } from '@/lib/policy/hf/config';
import { configureOnnxRuntime, type Provider } from '@/lib/policy/onnx-session';
import { apiOptions, cliApi } from './api';
import { CliError, intOption, output, type Command } from './args';
import { cliDatabase } from './database';
import { table } from './format';
import { exportRunModel } from './run-model-export';
import { settings } from '@/core/settings';

// onnxruntime's log level and threads for this process (CRUCIBLE_POLICY_ORT_LOG, CRUCIBLE_POLICY_THREADS)
configureOnnxRuntime(settings());

// Hugging Face models: `models inspect DIR` reads a directory; `models import|list|show`
// register them in the database (their files in the artifact store, server/models); `models
// export` writes a registered model back out as a Hugging Face directory; `policy sample
// --model NAME|DIR` samples from either.

/**
 * A registered model's directory on this host, rebuilt from the artifact store by hash
 * (in-process: this host's database and store, like `policy fetch`).
 */
export async function registeredModelDir(name: string): Promise<{ row: ModelRow; dir: string }> {
  const db = (await cliDatabase()).db;
  let row: ModelRow;
  try {
    row = await getModel(db, name);
  } catch (e) {
    throw new CliError((e as Error).message, 1);
  }
  const dir = await withModelStore(db, (store, root) => modelDirectory(store, row, root)).catch((e: Error) => {
    throw new CliError(`cannot fetch the files of model "${name}" from the artifact store: ${e.message}`, 1);
  });
  return { row, dir };
}

/** `--model` / DIR: an existing directory is read as it is; otherwise the name of a registered model. */
async function resolveModel(arg: unknown, usage: string): Promise<string> {
  if (typeof arg !== 'string' || !arg) throw new CliError(`missing model (a registered model's NAME, or a local Hugging Face model DIR)\nusage: ${usage}`);
  if (await fs.stat(arg).catch(() => undefined)) return arg;
  if (!modelName.safeParse(arg).success || arg.includes('/'))
    throw new CliError(`${arg}: no such directory (and not a model name; see \`crucible models list\`)\nusage: ${usage}`);
  return (await registeredModelDir(arg)).dir;
}

async function loadModel(arg: unknown, usage: string, cpu: boolean, precision?: Precision): Promise<HfPolicy> {
  const dir = await resolveModel(arg, usage);
  try {
    return await HfPolicy.load(dir, { providers: cpu ? (['cpu'] as Provider[]) : undefined, precision });
  } catch (e) {
    throw new CliError(`cannot load model ${String(arg)}: ${(e as Error).message}`, 1);
  }
}

/** `--adapter DIR|FILE`: a PEFT LoRA adapter, checked against the model it will be applied to. */
async function readAdapter(arg: string, model: HfModelConfig): Promise<LoraAdapter> {
  try {
    return await readPeftAdapter(path.resolve(arg), model);
  } catch (e) {
    throw new CliError(`cannot use adapter ${arg}: ${(e as Error).message}`, 1);
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
  'crucible policy sample --model NAME|DIR [--adapter DIR] (--prompt TEXT | --prompt-ids 1,2,3) [--chat] [--max-new-tokens 64] [--temperature 1] [--top-p 1] [--top-k 0] [--seed 0] [--precision fp32|fp16|bf16] [--cpu] [--json]';

/** `policy sample --model NAME|DIR`: one completion from a registered model or a Hugging Face model directory. */
export async function sampleHfModel(values: Record<string, unknown>): Promise<number> {
  const prompts = (values.prompt as string[] | undefined) ?? [];
  if (prompts.length > 1) throw new CliError(`--model takes one --prompt\nusage: ${hfSampleUsage}`);
  const hasText = prompts.length > 0;
  const hasIds = values['prompt-ids'] !== undefined;
  if (hasText === hasIds) throw new CliError(`give exactly one of --prompt or --prompt-ids\nusage: ${hfSampleUsage}`);
  if (values.chat && values['prompt-ids'] !== undefined)
    throw new CliError('--chat renders --prompt TEXT with the chat template; it does not apply to --prompt-ids');
  const ids = values['prompt-ids'] !== undefined ? promptIds(values['prompt-ids']) : undefined;
  const precision = values.precision as string | undefined;
  if (precision !== undefined && !(PRECISIONS as readonly string[]).includes(precision))
    throw new CliError(`--precision must be ${PRECISIONS.join(', ')}, got "${precision}"`);
  const policy = await loadModel(values.model, hfSampleUsage, !!values.cpu, precision as Precision | undefined);
  try {
    // A PEFT adapter is merged into the weights it adapts (HfPolicy.setAdapter).
    if (values.adapter !== undefined) policy.setAdapter(await readAdapter(String(values.adapter), policy.config));
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
    const result = {
      tokens: c!.tokens,
      text: c!.text,
      logprobs: c!.logprobs,
      promptTokens: prompt,
      finishReason: c!.finishReason,
      provider: policy.provider,
      matmuls: policy.matmuls,
    };
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

const inspectUsage = 'crucible models inspect NAME|DIR [--json]';
const inspect: Command = {
  name: 'models inspect',
  summary: 'read a Hugging Face model (a local directory or a registered NAME): architecture, shape, parameters, dtypes, tokenizer, chat template',
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

const fmtBytes = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(1)} kB`);

const importUsage =
  "crucible models import DIR --name NAME [--json]\n  DIR is read by the process that runs the import: this host, or the console's host with --url (there only under its CRUCIBLE_IMPORT_ROOTS)";
const importCmd: Command = {
  name: 'models import',
  summary: 'register a Hugging Face model directory: validated, its files published to the artifact store by sha256',
  usage: importUsage,
  options: { ...apiOptions, name: { type: 'string' } },
  run: async ({ values, positionals }) => {
    const dir = positionals[0];
    if (!dir) throw new CliError(`missing DIR (a Hugging Face model directory)\nusage: ${importUsage}`);
    if (!values.name) throw new CliError(`missing --name (what the model is registered as)\nusage: ${importUsage}`);
    const api = await cliApi(values);
    const row = await api.models.import.mutate({ name: values.name as string, dir: path.resolve(dir) });
    output(
      !!values.json,
      row,
      () =>
        `registered ${row.name}: ${row.architecture}, ${row.parameters.toLocaleString()} parameters, ${row.dtype}, ${row.files.length} files (${fmtBytes(row.bytes)})\nweights sha256   ${row.weightsSha256}\ntokenizer sha256 ${row.tokenizerSha256}`,
    );
    return 0;
  },
};

const list: Command = {
  name: 'models list',
  summary: 'registered models: architecture, parameters, dtype, size',
  usage: 'crucible models list [--json]',
  options: { ...apiOptions },
  run: async ({ values }) => {
    const rows = await (await cliApi(values)).models.list.query();
    output(!!values.json, rows, () =>
      rows.length
        ? table(
            rows.map((r) => ({
              name: r.name,
              architecture: r.architecture,
              parameters: r.parameters.toLocaleString(),
              dtype: r.dtype,
              size: fmtBytes(r.bytes),
              chatTemplate: r.chatTemplate ? 'yes' : 'no',
              created: r.createdAt.toISOString().slice(0, 16).replace('T', ' '),
            })),
            ['name', 'architecture', 'parameters', 'dtype', 'size', 'chatTemplate', 'created'],
          )
        : 'no models registered; add one with `crucible models import DIR --name NAME`',
    );
    return 0;
  },
};

const showUsage = 'crucible models show NAME [--json]';
const show: Command = {
  name: 'models show',
  summary: 'one registered model: architecture, parameters, dtype, tokenizer, hashes, chat template and its preview',
  usage: showUsage,
  options: { ...apiOptions },
  run: async ({ values, positionals }) => {
    if (!positionals[0]) throw new CliError(`missing NAME\nusage: ${showUsage}`);
    const m = await (await cliApi(values)).models.show.query({ name: positionals[0] });
    output(!!values.json, m, () => {
      const c = m.config;
      const lines = [
        `${m.name}`,
        `architecture     ${m.architecture}`,
        `parameters       ${m.parameters.toLocaleString()} (${m.dtype})`,
        `shape            hidden=${String(c.hidden_size)} layers=${String(c.num_hidden_layers)} heads=${String(c.num_attention_heads)} kv-heads=${String(c.num_key_value_heads ?? c.num_attention_heads)} vocab=${String(c.vocab_size)} context=${String(c.max_position_embeddings)}`,
        m.tokenizer
          ? `tokenizer        vocab ${m.tokenizer.vocabSize}, bos ${m.tokenizer.bos ?? '-'}, eos ${m.tokenizer.eos ?? '-'}, pad ${m.tokenizer.pad ?? '-'}`
          : `tokenizer        not inspected (see the preview's error)`,
        `tokenizer sha256 ${m.tokenizerSha256}`,
        `weights sha256   ${m.weightsSha256}`,
        `files            ${m.files.map((f) => `${f.path} (${fmtBytes(f.size)})`).join(', ')}`,
        `imported         ${m.createdAt.toISOString()} by ${m.createdBy}${m.source ? ` from ${m.source}` : ''}`,
      ];
      if (!m.chatTemplate) lines.push('chat template    none');
      else {
        lines.push('chat template', m.chatTemplate);
        if (m.preview && 'text' in m.preview) lines.push(`preview (sample conversation, ${m.preview.tokens} tokens)`, m.preview.text);
        else if (m.preview) lines.push(`preview: the template refuses the sample conversation: ${m.preview.error}`);
      }
      return lines.join('\n');
    });
    return 0;
  },
};

const exportUsage =
  'crucible models export NAME --format hf|peft --out DIR [--adapter DIR|FILE] [--json]\n' +
  'crucible models export --run RUN [--version N] --format hf|peft --out DIR [--json]\n' +
  "  --run: a run's trained policy (its latest version, or vN) on the registered model it trains\n" +
  '  hf: a Hugging Face directory (model.safetensors in the dtype it was imported in, config and tokenizer files);\n' +
  '      with --adapter, the PEFT LoRA adapter merged in (W + B·A·alpha/r, then stored in that dtype)\n' +
  '  peft: the PEFT LoRA adapter given by --adapter (adapter_config.json, adapter_model.safetensors in float32),\n' +
  '      checked against NAME and recorded with NAME as its base; a registered base model has no adapter of its own';
const exportCmd: Command = {
  name: 'models export',
  summary: 'write a registered model out as a Hugging Face directory (--format hf) or a PEFT LoRA adapter (--format peft)',
  usage: exportUsage,
  options: {
    format: { type: 'string' },
    out: { type: 'string' },
    adapter: { type: 'string' },
    run: { type: 'string' },
    version: { type: 'string' },
    json: { type: 'boolean' },
  },
  run: async ({ values, positionals }) => {
    if (values.run !== undefined) {
      if (positionals.length) throw new CliError(`--run RUN names the model itself (the one the run trains): drop "${positionals[0]}"\nusage: ${exportUsage}`);
      return exportRun(values);
    }
    if (values.version !== undefined) throw new CliError(`--version needs --run RUN (a run's policy version)\nusage: ${exportUsage}`);
    const name = positionals[0];
    if (!name) throw new CliError(`missing NAME (a registered model, see \`crucible models list\`)\nusage: ${exportUsage}`);
    const format = values.format as string | undefined;
    if (!format || !(EXPORT_FORMATS as readonly string[]).includes(format))
      throw new CliError(`--format must be one of ${EXPORT_FORMATS.join(', ')}${format ? `, got "${format}"` : ''}\nusage: ${exportUsage}`);
    if (!values.out) throw new CliError(`missing --out DIR\nusage: ${exportUsage}`);
    const out = path.resolve(values.out as string);
    const { row, dir } = await registeredModelDir(name);
    if (format === 'peft' && values.adapter === undefined)
      throw new CliError(
        `model "${name}" is a registered base model with no LoRA adapter: --format peft writes a LoRA adapter given with --adapter DIR; export the base with --format hf`,
        1,
      );
    const fail = (e: Error): never => {
      throw e instanceof CliError ? e : new CliError(`cannot export model "${name}": ${e.message}`, 1);
    };
    const config = values.adapter === undefined ? undefined : await readHfConfig(dir).catch(fail);
    const adapter = config ? await readAdapter(String(values.adapter), config) : undefined;
    if (format === 'peft') {
      const r = await writePeftAdapter(out, { config: { ...adapter!.config, baseModelNameOrPath: row.name }, tensors: adapter!.tensors, base: config }).catch(
        fail,
      );
      output(!!values.json, { name: row.name, format, adapter: path.resolve(String(values.adapter)), ...r }, () =>
        [
          `wrote ${out}: a LoRA adapter for ${row.name} (${r.tensors} tensors, PEFT format)`,
          ...r.files.map((f) => `  ${f.path.padEnd(26)} ${fmtBytes(f.size)}`),
        ].join('\n'),
      );
      return 0;
    }
    const weights = adapter && config ? mergeLora((await loadHfWeights(dir, config).catch(fail)).weights, adapter.config, adapter.tensors, config) : undefined;
    const r = await exportHfDirectory({ from: dir, out, weights }).catch(fail);
    const result = { name: row.name, format, ...(adapter ? { adapter: path.resolve(String(values.adapter)) } : {}), ...r };
    output(
      !!values.json,
      result,
      () =>
        `wrote ${out}: ${row.name}${adapter ? ' with the adapter merged' : ''} as a Hugging Face directory (${r.tensors} tensors, ${Object.entries(r.dtypes)
          .map(([d, n]) => `${n} ${d}`)
          .join(', ')})\n${r.files.map((f) => `  ${f.path.padEnd(26)} ${fmtBytes(f.size)}`).join('\n')}`,
    );
    return 0;
  },
};

async function exportRun(values: Record<string, unknown>): Promise<number> {
  const format = values.format as string | undefined;
  if (format !== 'hf' && format !== 'peft')
    throw new CliError(`--format must be one of ${EXPORT_FORMATS.join(', ')}${format ? `, got "${format}"` : ''}\nusage: ${exportUsage}`);
  if (values.adapter !== undefined) throw new CliError(`--adapter and --run exclude each other: a run's LoRA adapter is its own\nusage: ${exportUsage}`);
  if (!values.out) throw new CliError(`missing --out DIR\nusage: ${exportUsage}`);
  const out = path.resolve(values.out as string);
  const version = intOption(values.version, 'version');
  if (version !== undefined && !(Number.isInteger(version) && version >= 0))
    throw new CliError(`--version must be a policy version (0, 1, …), got "${String(values.version)}"`);
  const r = await exportRunModel({ run: String(values.run), version, format, out }).catch((e: Error) => {
    throw e instanceof CliError ? e : new CliError(`cannot export run ${String(values.run)}: ${e.message}`, 1);
  });
  output(!!values.json, { ...r, format, out }, () =>
    [
      `wrote ${out}: run ${r.run} v${r.version} (${r.training === 'lora' ? 'LoRA' : 'full fine-tuning'} of ${r.model}) ${format === 'peft' ? 'as a PEFT LoRA adapter' : 'as a Hugging Face directory'}`,
      ...r.files.map((f) => `  ${f.path.padEnd(26)} ${fmtBytes(f.size)}`),
    ].join('\n'),
  );
  return 0;
}

export const commands: Command[] = [inspect, importCmd, list, show, exportCmd, sftCommand];
