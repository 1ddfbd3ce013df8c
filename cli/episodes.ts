import fs from 'node:fs';
import type { ExportedEpisode } from '@/server/episodes/export';
import { episodesParquet } from '@/server/episodes/export-parquet';
import { CliError, type Command } from './args';
import { apiOptions, cliApi, type ApiInputs } from './api';

const USAGE =
  'crucible episodes export --run RUN_ID [--format jsonl|parquet] [--out FILE] [--min-reward R] [--status scored,masked,…]\n' +
  '  one episode a record: OpenAI-style messages (with tool calls), the token view (ids, loss_mask, logprobs),\n' +
  '  reward and components, env_hash, harness_version, policy_version. Default: scored episodes, JSONL on stdout;\n' +
  '  Parquet needs --out.';

export const commands: Command[] = [
  {
    name: 'episodes export',
    summary: "export a run's episodes for SFT or offline training (JSONL or Parquet)",
    usage: USAGE,
    options: {
      ...apiOptions,
      run: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
      'min-reward': { type: 'string' },
      status: { type: 'string' },
    },
    run: async ({ values }) => {
      if (!values.run) throw new CliError(`--run is required\nusage: ${USAGE}`);
      const format = (values.format as string | undefined) ?? 'jsonl';
      if (format !== 'jsonl' && format !== 'parquet') throw new CliError(`--format must be jsonl or parquet, got "${format}"\nusage: ${USAGE}`);
      if (format === 'parquet' && !values.out) throw new CliError(`--format parquet needs --out FILE (Parquet is binary)\nusage: ${USAGE}`);
      const raw = values['min-reward'] as string | undefined;
      const minReward = raw === undefined ? undefined : Number(raw);
      if (raw !== undefined && (raw.trim() === '' || !Number.isFinite(minReward))) throw new CliError(`--min-reward must be a number, got "${raw}"`);
      const status = (values.status as string | undefined)?.split(',').map((s) => s.trim()) as ApiInputs['episodes']['export']['status'];
      const api = await cliApi(values);
      const items: ExportedEpisode[] = [];
      const out = values.out ? fs.openSync(values.out as string, 'w') : 1;
      try {
        for (let offset: number | null = 0; offset !== null;) {
          const page: { items: ExportedEpisode[]; next: number | null } = await api.episodes.export.query({
            runId: values.run as string,
            minReward,
            status,
            offset,
            limit: 100,
          });
          if (format === 'jsonl') for (const e of page.items) fs.writeSync(out, `${JSON.stringify(e)}\n`);
          else items.push(...page.items);
          offset = page.next;
        }
        if (format === 'parquet') fs.writeSync(out, new Uint8Array(episodesParquet(items)));
      } finally {
        if (out !== 1) fs.closeSync(out);
      }
      return 0;
    },
  },
];
