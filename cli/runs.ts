import fs from 'node:fs';
import { CliError, intOption, output, type Command } from './args';
import { apiOptions, cliApi, type ApiInputs } from './api';
import { RUN_EVENTS_MAX_PAGE } from '@/server/runs/run-events';
import { table } from './format';
import { policyFromFlags, policyOptions, policyText, policyUsage } from './run-policy-flags';

type Run = { episodesDone: number; episodesTotal: number; lastRewardMean: number | null; config: { algorithm: string } };

const summary = <R extends Run>(r: R) => ({
  ...r,
  progress: `${r.episodesDone}/${r.episodesTotal}`,
  reward: r.lastRewardMean?.toFixed(3) ?? null,
  algorithm: r.config.algorithm,
});

/** `--set key=value` pairs (numbers and booleans parsed; dotted keys nest) merged over --config JSON. */
function configFrom(values: Record<string, unknown>): Record<string, unknown> {
  let config: Record<string, unknown> = {};
  const src = values.config as string | undefined;
  if (src) {
    const text = src.trim().startsWith('{') ? src : fs.readFileSync(src, 'utf8');
    try {
      config = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new CliError(`--config is not valid JSON: ${(e as Error).message}`);
    }
  }
  for (const kv of (values.set as string[] | undefined) ?? []) {
    const eq = kv.indexOf('=');
    if (eq < 1) throw new CliError(`--set expects key=value, got "${kv}"`);
    const keys = kv.slice(0, eq).split('.');
    const raw = kv.slice(eq + 1);
    const value = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    let node = config;
    for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
    node[keys.at(-1)!] = value;
  }
  return config;
}

const idCommand = (action: 'pause' | 'resume' | 'cancel'): Command => ({
  name: `runs ${action}`,
  summary: `${action} a run`,
  usage: `crucible runs ${action} RUN_ID [--json] [--url URL --token TOKEN]`,
  options: apiOptions,
  run: async ({ values, positionals }) => {
    const id = positionals[0];
    if (!id) throw new CliError(`missing RUN_ID\nusage: crucible runs ${action} RUN_ID`);
    const api = await cliApi(values);
    const run = await api.runs[action].mutate({ id });
    output(!!values.json, run, () => `run ${run.id} is now ${run.status}`);
    return 0;
  },
});

export const commands: Command[] = [
  {
    name: 'runs list',
    summary: 'list runs (newest first) with filters and pagination',
    usage: 'crucible runs list [--status S]... [--search TEXT] [--page N] [--page-size N] [--json]',
    options: {
      ...apiOptions,
      status: { type: 'string', multiple: true },
      search: { type: 'string' },
      page: { type: 'string' },
      'page-size': { type: 'string' },
    },
    run: async ({ values }) => {
      const api = await cliApi(values);
      const res = await api.runs.list.query({
        status: values.status as ApiInputs['runs']['list']['status'],
        search: values.search as string | undefined,
        page: intOption(values.page, 'page'),
        pageSize: intOption(values['page-size'], 'page-size'),
      });
      output(
        !!values.json,
        res,
        () =>
          `${table(res.items.map(summary), ['id', 'name', 'status', 'algorithm', 'progress', 'reward', 'createdAt'])}\n${res.total} run(s), page ${res.page}`,
      );
      return 0;
    },
  },
  {
    name: 'runs create',
    summary: 'launch a run (config defaults fill in anything not given)',
    usage:
      'crucible runs create --name NAME [--config FILE|JSON] [--set key=value]... [--model NAME [--training lora|full] [--lora-rank N] [--lora-alpha X] [--lora-targets LIST] [--precision fp32|fp16|bf16]] [--tools LIST] [--control-arm] [--json]\n  e.g. --set algorithm=ppo --set groupSize=4 --set quota.cpus=1\n' +
      `${policyUsage}\n` +
      "  --control-arm (or --set controlArm=true) also launches a twin run with learning rate 0, linked to this one\n  --tools bash,str_replace  a repository suite's agent tools (of bash, read_file, write_file, str_replace; submit is always given);\n    its budgets: --set maxTurns=N --set agentTokenBudget=N --set agentMaxNewTokens=N --set agentTimeBudgetS=N --set agentToolOutputBytes=N (docs/agents.md)\n    its reward: --set repoReward=fraction|resolved (resolved: SWE-bench's 0/1)\n  a Hugging Face model's tool-call format and chat-template variables: --set toolCallFormat=hermes|llama-json|xml-function|mistral\n    (default: what its chat template renders) --set chatTemplateArgs.enable_thinking=false (Qwen3's non-thinking mode)",
    options: {
      ...apiOptions,
      name: { type: 'string' },
      config: { type: 'string' },
      set: { type: 'string', multiple: true },
      tools: { type: 'string' },
      'control-arm': { type: 'boolean' },
      ...policyOptions,
    },
    run: async ({ values }) => {
      if (!values.name) throw new CliError('--name is required\nusage: crucible runs create --name NAME [--set key=value]...');
      const api = await cliApi(values);
      // controlArm is a launch option, not part of the run's config
      const { controlArm, ...config } = configFrom(values);
      // a list: comma-separated names (zod checks each against the tool names)
      if (values.tools !== undefined)
        config.tools = String(values.tools)
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
      const policy = policyFromFlags(values, config.policy);
      if (policy) config.policy = policy;
      if (controlArm !== undefined && typeof controlArm !== 'boolean')
        throw new CliError(`controlArm must be true or false, got ${JSON.stringify(controlArm)}`);
      const run = await api.runs.create.mutate({
        name: values.name as string,
        config: config as ApiInputs['runs']['create']['config'],
        controlArm: !!values['control-arm'] || controlArm === true,
      });
      output(
        !!values.json,
        run,
        () =>
          `created run ${run.id} (${run.name}), status ${run.status}, policy ${policyText(run.config.policy)}${run.controlRunId ? `; control arm (learning rate 0) ${run.controlRunId}` : ''}`,
      );
      return 0;
    },
  },
  {
    name: 'runs show',
    summary: 'show a run: status, config and events',
    usage: 'crucible runs show RUN_ID [--json]',
    options: apiOptions,
    run: async ({ values, positionals }) => {
      const id = positionals[0];
      if (!id) throw new CliError('missing RUN_ID\nusage: crucible runs show RUN_ID');
      const api = await cliApi(values);
      const run = await api.runs.get.query({ id });
      // every event, oldest first as before paging: the API serves them newest first, a page at a time
      let page = await api.runs.events.query({ id, limit: RUN_EVENTS_MAX_PAGE });
      const events = [...page.items];
      while (page.nextCursor !== null) {
        page = await api.runs.events.query({ id, cursor: page.nextCursor, limit: RUN_EVENTS_MAX_PAGE });
        events.push(...page.items);
      }
      events.reverse();
      output(!!values.json, { ...run, events }, () =>
        [
          `${run.name}  (${run.id})`,
          `status: ${run.status}   progress: ${summary(run).progress}   actions: ${run.allowedActions.join(', ') || 'none'}`,
          `config: ${JSON.stringify(run.config)}`,
          '',
          table(events, ['at', 'type', 'toStatus', 'actor']),
        ].join('\n'),
      );
      return 0;
    },
  },
  idCommand('pause'),
  idCommand('resume'),
  idCommand('cancel'),
  {
    name: 'runs clone',
    summary: 'start a new run with the same config',
    usage: 'crucible runs clone RUN_ID [--name NAME] [--json]',
    options: { ...apiOptions, name: { type: 'string' } },
    run: async ({ values, positionals }) => {
      const id = positionals[0];
      if (!id) throw new CliError('missing RUN_ID\nusage: crucible runs clone RUN_ID');
      const api = await cliApi(values);
      const run = await api.runs.clone.mutate({ id, name: values.name as string | undefined });
      output(!!values.json, run, () => `created run ${run.id} (${run.name}) from ${id}`);
      return 0;
    },
  },
];
