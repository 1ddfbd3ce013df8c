import fs from 'node:fs';
import path from 'node:path';
import { CliError, output, type Command } from './args';
import { apiOptions, cliApi } from './api';
import { table } from './format';

export const commands: Command[] = [
  {
    name: 'tasks import',
    summary: 'import a JSONL task file into a suite (all lines or nothing)',
    usage: 'crucible tasks import FILE [--format crucible|humaneval] [--suite NAME] [--replace] [--json]\n  --suite defaults to the file name without extension',
    options: { ...apiOptions, format: { type: 'string' }, suite: { type: 'string' }, replace: { type: 'boolean' } },
    run: async ({ values, positionals }) => {
      const file = positionals[0];
      if (!file) throw new CliError('missing FILE\nusage: crucible tasks import FILE [--format crucible|humaneval]');
      if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
      const format = (values.format as string | undefined) ?? 'crucible';
      if (format !== 'crucible' && format !== 'humaneval') throw new CliError(`--format must be crucible or humaneval, got "${format}"`);
      const suite = (values.suite as string | undefined) ?? path.basename(file).replace(/\.[^.]*$/, '');
      const api = await cliApi(values);
      const res = (await api('tasks.import', { suite, format, text: fs.readFileSync(file, 'utf8'), replace: !!values.replace })) as { imported: number; suite: { id: string; name: string } };
      output(!!values.json, { suite: res.suite.name, suiteId: res.suite.id, imported: res.imported }, () => `imported ${res.imported} task(s) into suite "${res.suite.name}"`);
      return 0;
    },
  },
  {
    name: 'tasks list',
    summary: "list a suite's tasks",
    usage: 'crucible tasks list [--suite NAME] [--split train|heldout] [--json]',
    options: { ...apiOptions, suite: { type: 'string' }, split: { type: 'string' } },
    run: async ({ values }) => {
      const api = await cliApi(values);
      const rows = (await api('tasks.list', { suite: (values.suite as string | undefined) ?? 'builtin', split: values.split })) as Record<string, unknown>[];
      output(!!values.json, rows, () => `${table(rows, ['externalId', 'language', 'split', 'difficulty', 'entryPoint'])}\n${rows.length} task(s)`);
      return 0;
    },
  },
  {
    name: 'tasks suites',
    summary: 'list task suites',
    usage: 'crucible tasks suites [--json]',
    options: apiOptions,
    run: async ({ values }) => {
      const api = await cliApi(values);
      const rows = (await api('runs.suites')) as Record<string, unknown>[];
      output(!!values.json, rows, () => table(rows, ['name', 'tasks', 'description']));
      return 0;
    },
  },
];
