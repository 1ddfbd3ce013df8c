import fs from 'node:fs/promises';
import path from 'node:path';
import { exportHfDirectory } from '@/lib/policy/hf/export-hf';
import { HfTrainer } from '@/lib/policy/hf/hf-trainer';
import { sftSequences, sftSteps } from '@/lib/policy/sft-sequences';
import { CliError, intOption, output, type Command } from './args';
import { registeredModelDir } from './models';
import { apiOptions, cliApi } from './api';

const USAGE =
  'crucible models sft (NAME | --model-dir DIR) --data EPISODES.jsonl --out DIR [--register NAME] [--steps 20] [--batch 4] [--lr 1e-4] [--seed 0] [--json]\n' +
  '  fine-tunes on exported episodes (`crucible episodes export`): their token view as it is, the loss on the\n' +
  "  assistant's tokens only (loss_mask 1); writes the tuned model as a Hugging Face directory\n" +
  '  --register NAME: also registers it (as `crucible models import OUT --name NAME` does), so a run can start from it (a warm start)';

export const sftCommand: Command = {
  name: 'models sft',
  summary: 'supervised fine-tuning on exported episodes (rejection-sampling SFT); writes a Hugging Face directory',
  usage: USAGE,
  options: {
    ...apiOptions,
    register: { type: 'string' },
    'model-dir': { type: 'string' },
    data: { type: 'string' },
    out: { type: 'string' },
    steps: { type: 'string' },
    batch: { type: 'string' },
    lr: { type: 'string' },
    seed: { type: 'string' },
  },
  run: async ({ values, positionals }) => {
    if (!values.data || !values.out) throw new CliError(`--data and --out are required\nusage: ${USAGE}`);
    if (!positionals[0] === !values['model-dir']) throw new CliError(`name a registered model or give --model-dir DIR (one of them)\nusage: ${USAGE}`);
    // a taken name is refused before the minutes of training, not after
    const api = values.register ? await cliApi(values) : undefined;
    if (api && (await api.models.list.query()).some((m) => m.name === values.register))
      throw new CliError(`a model named "${String(values.register)}" is already registered; choose another --register name`);
    const dir = values['model-dir'] ? path.resolve(values['model-dir'] as string) : (await registeredModelDir(positionals[0]!)).dir;
    const lr = values.lr === undefined ? 1e-4 : Number(values.lr);
    if (!(lr > 0 && lr < 1)) throw new CliError(`--lr must be a number between 0 and 1, got "${String(values.lr)}"`);
    const text = await fs.readFile(values.data as string, 'utf8').catch((e: Error) => {
      throw new CliError(`cannot read --data ${String(values.data)}: ${e.message}`);
    });
    const trainer = await HfTrainer.load(dir, { optim: { lr, warmupSteps: 0 } }).catch((e: Error) => {
      throw new CliError(`cannot load the model in ${dir}: ${e.message}`, 1);
    });
    try {
      let seqs;
      try {
        seqs = sftSequences(text.split('\n'), trainer.config, String(values.data));
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      const losses = await sftSteps(trainer, seqs, {
        steps: intOption(values.steps, 'steps') ?? 20,
        batch: intOption(values.batch, 'batch') ?? 4,
        seed: intOption(values.seed, 'seed') ?? 0,
      }).catch((e: Error) => {
        throw new CliError(e.message, 1);
      });
      const r = await exportHfDirectory({ from: dir, out: path.resolve(values.out as string), weights: trainer.exportWeights() }).catch((e: Error) => {
        throw new CliError(`cannot write ${String(values.out)}: ${e.message}`, 1);
      });
      // registered through the API as `models import` is: validated, published by hash, audited
      const registered = api ? await api.models.import.mutate({ name: values.register as string, dir: r.dir }) : undefined;
      output(
        !!values.json,
        { sequences: seqs.length, losses, ...r, ...(registered ? { registered: { name: registered.name, weightsSha256: registered.weightsSha256 } } : {}) },
        () =>
          [
            `trained on ${seqs.length} sequences, ${losses.length} steps: loss ${losses[0]!.toFixed(4)} → ${losses.at(-1)!.toFixed(4)}`,
            `wrote ${r.dir}`,
            ...(registered
              ? [`registered ${registered.name} (weights sha256 ${registered.weightsSha256}): launch a run with policy model "${registered.name}"`]
              : []),
          ].join('\n'),
      );
      return 0;
    } finally {
      await trainer.release();
    }
  },
};
