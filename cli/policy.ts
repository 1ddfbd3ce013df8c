import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { Rng } from '@/core/random';
import { dataDir } from '@/db/open-database';
import { listVersions, policiesDir, versionFile } from '@/lib/policy/checkpoint';
import { countParams } from '@/lib/policy/model';
import { DEFAULT_MODEL, Policy } from '@/lib/policy/policy';
import { sftSequences, type SftSequence } from '@/lib/policy/sft-sequences';
import { CliError, intOption, output, type Command } from './args';
import { configureOnnxRuntime, type Provider } from '@/lib/policy/onnx-session';
import { settings } from '@/core/settings';

// onnxruntime's log level and threads for this process (CRUCIBLE_POLICY_ORT_LOG, CRUCIBLE_POLICY_THREADS)
configureOnnxRuntime(settings());

const json = { json: { type: 'boolean' as const } };
const providerOpt = { cpu: { type: 'boolean' as const } };
const providers = (values: Record<string, unknown>): Provider[] | undefined => (values.cpu ? ['cpu'] : undefined);

/** A policy argument: an existing file or directory, else a name under the policies dir. */
async function resolvePolicy(arg: string | undefined, usage: string): Promise<string> {
  if (!arg) throw new CliError(`missing POLICY (a name under ${policiesDir(dataDir())}, or a path)\nusage: ${usage}`);
  const direct = await fs.stat(arg).catch(() => undefined);
  if (direct) return arg;
  const dir = path.join(policiesDir(dataDir()), arg);
  if (!(await fs.stat(dir).catch(() => undefined))) throw new CliError(`no policy "${arg}" (looked in ${dir}); create it with \`crucible policy init ${arg}\``);
  return dir;
}

async function load(arg: string | undefined, usage: string, values: Record<string, unknown>) {
  const where = await resolvePolicy(arg, usage);
  try {
    return { where, ...(await Policy.load(where, { providers: providers(values) })) };
  } catch (e) {
    throw new CliError(`cannot load policy ${where}: ${(e as Error).message}`, 1);
  }
}

const num = (v: unknown, name: string) => intOption(v, name);

const initUsage =
  'crucible policy init NAME [--d-model 64] [--layers 2] [--heads 4] [--mlp 256] [--max-seq 256] [--lr 3e-4] [--warmup 0] [--total-steps 1000] [--seed 0] [--force] [--json]';
const init: Command = {
  name: 'policy init',
  summary: 'create a policy from a random initialisation (version 1)',
  usage: initUsage,
  options: {
    ...json,
    'd-model': { type: 'string' },
    layers: { type: 'string' },
    heads: { type: 'string' },
    mlp: { type: 'string' },
    'max-seq': { type: 'string' },
    lr: { type: 'string' },
    warmup: { type: 'string' },
    'total-steps': { type: 'string' },
    seed: { type: 'string' },
    force: { type: 'boolean' },
  },
  run: async ({ values, positionals }) => {
    const name = positionals[0];
    if (!name || !/^[A-Za-z0-9._-]+$/.test(name)) throw new CliError(`NAME must be letters, digits, . _ -\nusage: ${initUsage}`);
    const dir = path.join(policiesDir(dataDir()), name);
    if ((await listVersions(dir)).length && !values.force) throw new CliError(`policy "${name}" already exists in ${dir}; pass --force to start it over`);
    if (values.force) await fs.rm(dir, { recursive: true, force: true });
    const d = num(values['d-model'], 'd-model') ?? DEFAULT_MODEL.dModel;
    let policy: Policy;
    try {
      policy = Policy.create({
        model: {
          dModel: d,
          nLayers: num(values.layers, 'layers') ?? DEFAULT_MODEL.nLayers,
          nHeads: num(values.heads, 'heads') ?? DEFAULT_MODEL.nHeads,
          dMlp: num(values.mlp, 'mlp') ?? 4 * d,
          maxSeqLen: num(values['max-seq'], 'max-seq') ?? DEFAULT_MODEL.maxSeqLen,
        },
        optim: {
          lr: num(values.lr, 'lr'),
          warmupSteps: num(values.warmup, 'warmup'),
          totalSteps: num(values['total-steps'], 'total-steps'),
        },
        seed: num(values.seed, 'seed') ?? 0,
      });
    } catch (e) {
      throw new CliError(`invalid policy settings: ${e instanceof z.ZodError ? z.prettifyError(e) : (e as Error).message}`);
    }
    const saved = await policy.saveVersion(dir);
    const result = { name, ...saved, parameters: countParams(policy.model), model: policy.model, optim: policy.optim };
    output(
      !!values.json,
      result,
      () => `created policy ${name} v${saved.version} (${result.parameters.toLocaleString()} parameters)\n${saved.path}\nsha256 ${saved.sha256}`,
    );
    return 0;
  },
};

const Demo = z.object({ prompt: z.string(), completion: z.string() });

const sftUsage =
  'crucible policy sft POLICY --data (demos.jsonl | episodes.jsonl) [--steps 100] [--batch 16] [--micro-batch N] [--seed 0] [--cpu] [--json]\n' +
  '  demos: {"prompt", "completion"} lines; episodes: `crucible episodes export` output of a byte-model run (tokens.ids, tokens.loss_mask), trained on as they are';
const sft: Command = {
  name: 'policy sft',
  summary: 'supervised fine-tuning on {"prompt","completion"} JSONL demonstrations or on exported episodes (`crucible episodes export`); saves a new version',
  usage: sftUsage,
  options: {
    ...json,
    ...providerOpt,
    data: { type: 'string' },
    steps: { type: 'string' },
    batch: { type: 'string' },
    'micro-batch': { type: 'string' },
    seed: { type: 'string' },
  },
  run: async ({ values, positionals }) => {
    if (!values.data) throw new CliError(`missing --data\nusage: ${sftUsage}`);
    const text = await fs.readFile(values.data as string, 'utf8').catch(() => {
      throw new CliError(`cannot read --data ${String(values.data)}`);
    });
    const lines = text.split('\n');
    // an export of episodes (`crucible episodes export`): its token view as it is, the loss on loss_mask 1
    const exported = (() => {
      const first = lines.find((l) => l.trim());
      try {
        return first !== undefined && typeof JSON.parse(first) === 'object' && 'tokens' in (JSON.parse(first) as object);
      } catch {
        return false;
      }
    })();
    if (exported) return trainOnSequences(values, positionals, lines);
    const demos = lines
      .map((l, i) => [l.trim(), i + 1] as const)
      .filter(([l]) => l)
      .map(([l, line]) => {
        try {
          return Demo.parse(JSON.parse(l));
        } catch (e) {
          throw new CliError(`${String(values.data)}:${line}: expected {"prompt": string, "completion": string} (${(e as Error).message.split('\n')[0]})`);
        }
      });
    if (!demos.length) throw new CliError(`${String(values.data)} has no demonstrations`);
    const { policy, where } = await load(positionals[0], sftUsage, values);
    const tok = policy.tokenizer;
    const seqs = demos.map((d) => {
      const prompt = tok.encode(d.prompt, { bos: true });
      const answer = [...tok.encode(d.completion), tok.spec.eos];
      return { tokens: [...prompt, ...answer], lossMask: [...prompt.map(() => 0), ...answer.map(() => 1)] };
    });
    return trainAndSave(values, policy, where, seqs);
  },
};

/** `policy sft` on exported episodes: each record's token ids and loss mask as they are (never re-tokenised). */
async function trainOnSequences(values: Record<string, unknown>, positionals: string[], lines: string[]): Promise<number> {
  const { policy, where } = await load(positionals[0], sftUsage, values);
  let seqs;
  try {
    seqs = sftSequences(lines, { vocabSize: policy.model.vocabSize, maxPositionEmbeddings: policy.model.maxSeqLen }, String(values.data));
  } catch (e) {
    await policy.release();
    throw new CliError((e as Error).message);
  }
  if (!seqs.length) {
    await policy.release();
    throw new CliError(`${String(values.data)} has no episode with assistant tokens (loss_mask 1) to train on`);
  }
  return trainAndSave(values, policy, where, seqs);
}

/** The SFT steps on seeded batches of `seqs`, then the new version saved beside the policy's others. */
async function trainAndSave(
  values: Record<string, unknown>,
  policy: Awaited<ReturnType<typeof load>>['policy'],
  where: string,
  seqs: SftSequence[],
): Promise<number> {
  const steps = num(values.steps, 'steps') ?? 100;
  const batch = num(values.batch, 'batch') ?? 16;
  const rng = new Rng(num(values.seed, 'seed') ?? 0);
  const log: { step: number; loss: number; gradNorm: number; lr: number; tokens: number; provider: string }[] = [];
  for (let i = 0; i < steps; i++) {
    // Deterministic batches: demos drawn with the seeded generator.
    const pick = Array.from({ length: Math.min(batch, seqs.length) }, () => rng.pick(seqs));
    const r = await policy.trainStep(pick, { kind: 'sft' }, { microBatchSize: num(values['micro-batch'], 'micro-batch') });
    log.push({ step: r.step, loss: r.loss, gradNorm: r.gradNorm, lr: r.lr, tokens: r.tokens, provider: r.provider });
    if (!values.json && (i % 10 === 0 || i === steps - 1))
      console.error(`step ${r.step} loss ${r.loss.toFixed(4)} grad-norm ${r.gradNorm.toFixed(3)} lr ${r.lr.toExponential(2)} (${r.provider})`);
  }
  const dir = (await fs.stat(where)).isDirectory() ? where : path.dirname(where);
  const saved = await policy.saveVersion(dir);
  output(
    !!values.json,
    { ...saved, steps: log },
    () => `saved v${saved.version}: final loss ${log.at(-1)!.loss.toFixed(4)}\n${saved.path}\nsha256 ${saved.sha256}`,
  );
  await policy.release();
  return 0;
}

const sampleUsage =
  'crucible policy sample POLICY --prompt TEXT [--prompt TEXT...] [--n 1] [--max-new-tokens 64] [--temperature 1] [--top-p 1] [--top-k 0] [--stop TEXT...] [--seed 0] [--no-cache] [--cpu] [--json]\n' +
  '       crucible policy sample --model DIR [--adapter DIR] (--prompt TEXT | --prompt-ids 1,2,3) [--chat] [--max-new-tokens 64] [--temperature 1] [--seed 0] [--precision fp32|fp16|bf16] [--cpu] [--json]';
const sample: Command = {
  name: 'policy sample',
  summary: 'sample completions (batched, seeded) with their token logprobs',
  usage: sampleUsage,
  options: {
    ...json,
    ...providerOpt,
    prompt: { type: 'string', multiple: true },
    n: { type: 'string' },
    'max-new-tokens': { type: 'string' },
    temperature: { type: 'string' },
    'top-p': { type: 'string' },
    'top-k': { type: 'string' },
    stop: { type: 'string', multiple: true },
    seed: { type: 'string' },
    'no-cache': { type: 'boolean' },
    model: { type: 'string' },
    'prompt-ids': { type: 'string' },
    chat: { type: 'boolean' },
    adapter: { type: 'string' },
    precision: { type: 'string' },
  },
  run: async ({ values, positionals }) => {
    // A Hugging Face model directory instead of a built-in policy (cli/models.ts).
    if (values.model !== undefined) return (await import('./models')).sampleHfModel(values);
    if (values.adapter !== undefined)
      throw new CliError(`--adapter applies a LoRA adapter to a Hugging Face --model; built-in policies take none\nusage: ${sampleUsage}`);
    if (values.precision !== undefined)
      throw new CliError(`--precision applies to a Hugging Face --model; built-in policies compute in float32\nusage: ${sampleUsage}`);
    const prompts = (values.prompt as string[] | undefined) ?? [];
    if (!prompts.length) throw new CliError(`missing --prompt\nusage: ${sampleUsage}`);
    const { policy } = await load(positionals[0], sampleUsage, values);
    const n = num(values.n, 'n') ?? 1;
    const all = prompts.flatMap((p) => Array.from({ length: n }, () => p));
    let out;
    try {
      out = await policy.sample(all, {
        maxNewTokens: num(values['max-new-tokens'], 'max-new-tokens') ?? 64,
        temperature: num(values.temperature, 'temperature'),
        topP: num(values['top-p'], 'top-p'),
        topK: num(values['top-k'], 'top-k'),
        stop: (values.stop as string[] | undefined) ?? [],
        seed: num(values.seed, 'seed') ?? 0,
        kvCache: !values['no-cache'],
      });
    } catch (e) {
      throw new CliError(e instanceof z.ZodError ? z.prettifyError(e) : (e as Error).message);
    }
    const rows = out.map((c, i) => ({
      prompt: all[i],
      text: c.text,
      tokens: c.tokens,
      logprobs: c.logprobs,
      finishReason: c.finishReason,
      provider: policy.provider,
    }));
    output(!!values.json, rows, () =>
      rows
        .map((r) => `${JSON.stringify(r.prompt)} → ${JSON.stringify(r.text)}  [${r.finishReason}, logprob ${r.logprobs.reduce((a, b) => a + b, 0).toFixed(2)}]`)
        .join('\n'),
    );
    await policy.release();
    return 0;
  },
};

const inspectUsage = 'crucible policy inspect POLICY [--json]';
const inspect: Command = {
  name: 'policy inspect',
  summary: 'show a policy: config, parameter count, step, versions and sha256',
  usage: inspectUsage,
  options: { ...json },
  run: async ({ values, positionals }) => {
    const { policy, sha256, path: file, where } = await load(positionals[0], inspectUsage, { ...values, cpu: true });
    const dir = (await fs.stat(where)).isDirectory() ? where : undefined;
    const versions = dir
      ? await Promise.all(
          (await listVersions(dir)).map(async (v) => ({ version: v, path: versionFile(dir, v), bytes: (await fs.stat(versionFile(dir, v))).size })),
        )
      : [];
    const info = {
      path: file,
      sha256,
      step: policy.step,
      parameters: countParams(policy.model),
      model: policy.model,
      optim: policy.optim,
      tokenizer: policy.tokenizer.spec,
      versions,
    };
    output(!!values.json, info, () =>
      [
        `${file}`,
        `sha256      ${sha256}`,
        `step        ${info.step}`,
        `parameters  ${info.parameters.toLocaleString()}`,
        `model       d=${policy.model.dModel} layers=${policy.model.nLayers} heads=${policy.model.nHeads} mlp=${policy.model.dMlp} context=${policy.model.maxSeqLen} vocab=${policy.model.vocabSize}`,
        `optimizer   AdamW lr=${policy.optim.lr} wd=${policy.optim.weightDecay} clip=${policy.optim.maxGradNorm} warmup=${policy.optim.warmupSteps} total=${policy.optim.totalSteps}`,
        `tokenizer   ${policy.tokenizer.spec.kind} (vocab ${policy.tokenizer.vocabSize})`,
        ...(versions.length ? [`versions    ${versions.map((v) => `v${v.version}`).join(' ')}`] : []),
      ].join('\n'),
    );
    return 0;
  },
};

const exportUsage = 'crucible policy export POLICY --out model.onnx [--kv-cache] [--json]';
const exportCmd: Command = {
  name: 'policy export',
  summary: 'write the inference model (weights included) as a plain .onnx file',
  usage: exportUsage,
  options: { ...json, out: { type: 'string' }, 'kv-cache': { type: 'boolean' } },
  run: async ({ values, positionals }) => {
    if (!values.out) throw new CliError(`missing --out\nusage: ${exportUsage}`);
    const { policy } = await load(positionals[0], exportUsage, { ...values, cpu: true });
    const r = await policy.exportOnnx(values.out as string, { withPast: !!values['kv-cache'] });
    output(!!values.json, r, () => `wrote ${r.path} (${r.bytes.toLocaleString()} bytes)`);
    return 0;
  },
};

export const commands: Command[] = [init, sft, sample, inspect, exportCmd];
