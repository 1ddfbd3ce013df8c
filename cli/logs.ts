import { CliError, intOption, type Command } from './args';
import { apiOptions, cliApi, type ApiInputs } from './api';
import { terminalSafe } from './terminal-safe';

type Filters = ApiInputs['logs']['list'];
type Record_ = {
  id: number;
  at: Date | string;
  level: string;
  msg: string;
  host: string;
  process: string;
  workerId: string | null;
  runId: string | null;
  episodeId: string | null;
  jobId: number | null;
  fields: Record<string, unknown>;
};

const LEVEL_WIDTH = 5;

/** One record as a line: time, level, host/process, ids, message, then its other fields as key=value. */
export function formatRecord(r: Record_): string {
  const at = (r.at instanceof Date ? r.at : new Date(r.at)).toISOString();
  const ids = [r.runId && `run=${r.runId.slice(0, 8)}`, r.episodeId && `episode=${r.episodeId.slice(0, 8)}`, r.jobId !== null && `job=${r.jobId}`].filter(
    Boolean,
  );
  const extra = Object.entries(r.fields)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}=${String(v)}`);
  return [at, r.level.toUpperCase().padEnd(LEVEL_WIDTH), `${r.host}/${r.workerId ?? r.process}`, ...ids, r.msg, ...extra].join(' ');
}

const usage = 'crucible logs [--run ID] [--episode ID] [--job ID] [--worker ID] [--host NAME] [--level LEVEL] [--grep TEXT] [--limit N] [--follow] [--json]';

export const commands: Command[] = [
  {
    name: 'logs',
    summary: 'search the log records of every host (newest N, oldest first); --follow polls for new ones until Ctrl-C',
    usage,
    options: {
      ...apiOptions,
      run: { type: 'string' },
      episode: { type: 'string' },
      job: { type: 'string' },
      worker: { type: 'string' },
      host: { type: 'string' },
      level: { type: 'string' },
      grep: { type: 'string' },
      limit: { type: 'string' },
      follow: { type: 'boolean', short: 'f' },
      'poll-ms': { type: 'string' },
    },
    allowPositionals: false,
    run: async ({ values }) => {
      const api = await cliApi(values);
      const filters: Filters = {
        run: values.run as string | undefined,
        episode: values.episode as string | undefined,
        job: intOption(values.job, 'job'),
        worker: values.worker as string | undefined,
        host: values.host as string | undefined,
        level: values.level as Filters['level'],
        text: values.grep as string | undefined,
      };
      const limit = intOption(values.limit, 'limit') ?? 100;
      const pollMs = intOption(values['poll-ms'], 'poll-ms') ?? 1000;
      if (pollMs < 100) throw new CliError('--poll-ms must be at least 100');
      const json = !!values.json;
      // JSON: one record per line (JSON Lines), so --follow streams too
      const print = (items: Record_[]) => {
        for (const r of items) process.stdout.write(json ? `${JSON.stringify(r)}\n` : `${terminalSafe(formatRecord(r))}\n`);
      };
      const page = await api.logs.list.query({ ...filters, limit });
      print([...page.items].reverse());
      if (!values.follow) return 0;
      let after = page.latest;
      let stopped = false;
      const stop = () => (stopped = true);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        while (!stopped) {
          await new Promise((r) => setTimeout(r, pollMs));
          if (stopped) break;
          // everything new since the cursor, page by page, oldest first
          for (;;) {
            const next = await api.logs.list.query({ ...filters, after, limit: 500 });
            print(next.items);
            after = next.latest;
            if (next.items.length < 500) break;
          }
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
      return 0;
    },
  },
];
