import fs from 'node:fs/promises';
import path from 'node:path';
import { exportHfDirectory } from '@/lib/policy/hf/export-hf';
import { HfTrainer } from '@/lib/policy/hf/hf-trainer';
import { sftSequences, sftSteps } from '@/lib/policy/hf/sft-sequences';
import { CliError, intOption, output, type Command } from './args';
import { registeredModelDir } from './models';

const USAGE =
  'crucible models sft (NAME | --model-dir DIR) --data EPISODES.jsonl --out DIR [--steps 20] [--batch 4] [--lr 1e-4] [--seed 0] [--json]\n' +
  '  fine-tunes on exported episodes (`crucible episodes export`): their token view as it is, the loss on the\n' +
  "  assistant's tokens only (loss_mask 1); writes the tuned model as a Hugging Face directory";

export const sftCommand: Command = {
  name: 'models sft',
  summary: 'supervised fine-tuning on exported episodes (rejection-sampling SFT); writes a Hugging Face directory',
  usage: USAGE,
  options: {
    'model-dir': { type: 'string' },
    data: { type: 'string' },
    out: { type: 'string' },
    steps: { type: 'string' },
    batch: { type: 'string' },
    lr: { type: 'string' },
    seed: { type: 'string' },
    json: { type: 'boolean' },
  },
  run: async ({ values, positionals }) => {
    if (!values.data || !values.out) throw new CliError(`--data and --out are required\nusage: ${USAGE}`);
    if (!positionals[0] === !values['model-dir']) throw new CliError(`name a registered model or give --model-dir DIR (one of them)\nusage: ${USAGE}`);
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
      output(!!values.json, { sequences: seqs.length, losses, ...r }, () =>
        [`trained on ${seqs.length} sequences, ${losses.length} steps: loss ${losses[0]!.toFixed(4)} → ${losses.at(-1)!.toFixed(4)}`, `wrote ${r.dir}`].join(
          '\n',
        ),
      );
      return 0;
    } finally {
      await trainer.release();
    }
  },
};
