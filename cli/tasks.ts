import fs from 'node:fs';
import path from 'node:path';
import { CliError, output, type Command } from './args';
import { apiOptions, apiTarget, cliApi, requireToken, type ApiInputs } from './api';
import { table } from './format';
import { commands as verifyCommands } from './tasks-verify';
import { TASK_FILE_FORMATS, type TaskFileFormat } from '@/core/tasks';
import { isGitUrl } from '@/server/tasks/repo-mirrors';

type ImportResult = { imported: number; suite: { id: string; name: string }; skippedLinks?: { task: string; paths: string[] }[] };

/**
 * Over HTTP a task file goes to the streaming upload route, not through tRPC: tRPC request
 * bodies are capped at CRUCIBLE_MAX_BODY_BYTES (1 MiB by default), task files often are not.
 */
async function uploadTasks(
  url: string,
  token: string | undefined,
  file: string,
  opts: { suite: string; format: string; replace: boolean },
): Promise<ImportResult> {
  requireToken(token);
  const q = new URLSearchParams({ suite: opts.suite, format: opts.format, replace: opts.replace ? '1' : '0' });
  const res = await fetch(`${url.replace(/\/$/, '')}/api/tasks/import?${q}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body: await fs.openAsBlob(file),
  }).catch((e: Error) => {
    throw new CliError(`cannot reach ${url}: ${e.message}`, 1);
  });
  const body = (await res.json().catch(() => null)) as (ImportResult & { error?: { message: string } }) | null;
  if (!res.ok || !body) throw new CliError(body?.error?.message ?? `${url} answered ${res.status} ${res.statusText}`, 1);
  return body;
}

export const commands: Command[] = [
  {
    name: 'tasks import',
    summary: 'import a JSONL task file into a suite (all lines or nothing)',
    usage:
      'crucible tasks import FILE [--format crucible|humaneval|crucible-repo|swebench] [--suite NAME] [--repos DIR|URL] [--replace] [--json]\n' +
      "  --suite defaults to the file name without extension; relative paths in repository task lines start at the file's directory\n" +
      '  (over --url the server reads them on its own disk: use absolute paths there)\n' +
      '  --repos: where SWE-bench lines naming repo "owner/name" (and no repo_path) are read from: DIR holding bare mirrors or clones\n' +
      '  as owner__name.git, owner__name or owner/name (tried in that order), or a git URL base cloned as URL/owner/name;\n' +
      "  default CRUCIBLE_REPO_MIRRORS; over --url only the server's CRUCIBLE_REPO_MIRRORS is read",
    options: { ...apiOptions, format: { type: 'string' }, suite: { type: 'string' }, replace: { type: 'boolean' }, repos: { type: 'string' } },
    run: async ({ values, positionals }) => {
      const file = positionals[0];
      if (!file) throw new CliError('missing FILE\nusage: crucible tasks import FILE [--format crucible|humaneval|crucible-repo|swebench]');
      if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
      const format = (values.format as string | undefined) ?? 'crucible';
      if (!(TASK_FILE_FORMATS as readonly string[]).includes(format))
        throw new CliError(`--format must be one of ${TASK_FILE_FORMATS.join(', ')}, got "${format}"`);
      const suite = (values.suite as string | undefined) ?? path.basename(file).replace(/\.[^.]*$/, '');
      const { url, token } = apiTarget(values);
      let repos = values.repos as string | undefined;
      if (repos !== undefined) {
        if (url)
          throw new CliError(
            '--repos names a directory on this host; over --url the server reads mirrors only from its own CRUCIBLE_REPO_MIRRORS (set it there, and leave --repos out)',
          );
        if (format !== 'swebench') throw new CliError('--repos is for --format swebench (lines naming repo "owner/name")');
        if (!isGitUrl(repos)) {
          repos = path.resolve(repos);
          if (!fs.existsSync(repos) || !fs.statSync(repos).isDirectory()) throw new CliError(`--repos: no such directory: ${repos}`);
        }
      }
      const res = url
        ? await uploadTasks(url, token, file, { suite, format, replace: !!values.replace })
        : await (
            await cliApi(values)
          ).tasks.import.mutate({
            suite,
            format: format as TaskFileFormat,
            text: fs.readFileSync(file, 'utf8'),
            replace: !!values.replace,
            baseDir: path.dirname(path.resolve(file)),
            ...(repos !== undefined ? { repos } : {}),
          });
      const skipped = res.skippedLinks ?? [];
      output(
        !!values.json,
        { suite: res.suite.name, suiteId: res.suite.id, imported: res.imported, ...(skipped.length ? { skippedLinks: skipped } : {}) },
        () =>
          [
            `imported ${res.imported} task(s) into suite "${res.suite.name}"`,
            ...(skipped.length ? ['symbolic links left out of the workspaces (workspaces hold regular files only):'] : []),
            ...skipped.map((s) => `  ${s.task}: ${s.paths.join(', ')}`),
          ].join('\n'),
      );
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
      const rows = await api.tasks.list.query({
        suite: (values.suite as string | undefined) ?? 'builtin',
        split: values.split as ApiInputs['tasks']['list']['split'],
      });
      output(!!values.json, rows, () => `${table(rows, ['externalId', 'kind', 'language', 'split', 'difficulty', 'entryPoint'])}\n${rows.length} task(s)`);
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
      const rows = await api.runs.suites.query();
      output(!!values.json, rows, () => table(rows, ['name', 'tasks', 'description']));
      return 0;
    },
  },
  {
    name: 'tasks system-prompt',
    summary: "set a suite's system prompt for agents (a run's own prompt overrides it)",
    usage: 'crucible tasks system-prompt SUITE (TEXT | @FILE | --clear) [--json]',
    options: { ...apiOptions, clear: { type: 'boolean' } },
    run: async ({ values, positionals }) => {
      const [suite, text] = positionals;
      const usage = 'usage: crucible tasks system-prompt SUITE (TEXT | @FILE | --clear)';
      if (!suite) throw new CliError(`missing SUITE\n${usage}`);
      if (!!values.clear === (text !== undefined)) throw new CliError(`give the prompt (TEXT or @FILE) or --clear, one of them\n${usage}`);
      let prompt: string | null = null;
      if (text !== undefined) {
        if (text.startsWith('@')) {
          const file = text.slice(1);
          if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
          prompt = fs.readFileSync(file, 'utf8');
        } else prompt = text;
      }
      const api = await cliApi(values);
      const r = await api.tasks.setSystemPrompt.mutate({ suite, systemPrompt: prompt });
      output(!!values.json, r, () =>
        r.systemPrompt === null
          ? `suite ${r.suite}: system prompt cleared (the default applies)`
          : `suite ${r.suite}: system prompt set (${r.systemPrompt.length} characters)`,
      );
      return 0;
    },
  },
  ...verifyCommands,
];
