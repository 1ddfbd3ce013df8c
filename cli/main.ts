import { apiError } from './api-error';
import { CliError, parseFor, type Command } from './args';
import { terminalSafe } from './terminal-safe';

/**
 * `npx crucible <group> <command>`. One module per group (cli/<group>.ts): the platform's
 * groups call the tRPC API through the typed client (cli/api.ts); sandbox, env, reward and
 * policy drive the libraries directly. Groups load lazily so `--help` stays fast.
 */
const groups: Record<string, { summary: string; load: () => Promise<Command[]>; single?: true }> = {
  runs: { summary: 'launch and manage training runs', load: async () => (await import('./runs')).commands },
  tasks: { summary: 'import and list task suites', load: async () => (await import('./tasks')).commands },
  users: { summary: 'manage console users', load: async () => (await import('./users')).commands },
  account: { summary: 'your own account: change your password (over the API)', load: async () => (await import('./users')).accountCommands },
  tokens: { summary: 'create and revoke API tokens', load: async () => (await import('./tokens')).commands },
  audit: { summary: 'inspect and verify the audit log', load: async () => (await import('./audit')).commands },
  // one command, no subcommand: `crucible logs --run ID --follow`
  logs: {
    summary: 'search the logs of every host (--run, --episode, --worker, --level, --follow)',
    load: async () => (await import('./logs')).commands,
    single: true,
  },
  sandbox: { summary: 'run commands in isolated sandboxes', load: async () => (await import('./sandbox')).sandboxCommands },
  env: {
    summary: 'build, verify, publish and fetch content-hashed environments',
    load: async () => [...(await import('./sandbox')).envCommands, ...(await import('./env-images')).envImageCommands],
  },
  artifacts: {
    summary: 'list and garbage-collect the artifact store (checkpoints, environment images, model files)',
    load: async () => (await import('./artifacts')).artifactCommands,
  },
  reward: { summary: 'score solutions from real execution', load: async () => (await import('./reward')).rewardCommands },
  episode: { summary: 'run an agent episode on a repository task with a scripted policy', load: async () => (await import('./episode')).commands },
  episodes: { summary: "export a run's episodes (JSONL, Parquet) for SFT and offline training", load: async () => (await import('./episodes')).commands },
  models: { summary: 'Hugging Face models: import, list, show, export, inspect', load: async () => (await import('./models')).commands },
  policy: {
    summary: "the built-in ONNX policy: init, sft, sample, inspect, export; fetch a run's version",
    load: async () => [...(await import('./policy')).commands, ...(await import('./run-policies')).runPolicyCommands],
  },
};

function topHelp(): string {
  const lines = ['usage: crucible <group> <command> [options] [--json]', '', 'groups:'];
  for (const [name, g] of Object.entries(groups)) lines.push(`  ${name.padEnd(10)} ${g.summary}`);
  lines.push('', 'Run `crucible <group> --help` for its commands, `crucible <group> <command> --help` for options.');
  lines.push('Database: DATABASE_URL, else the embedded server under CRUCIBLE_DATA_DIR (default .data/).');
  lines.push('Remote: --url http://host:port --token TOKEN (or CRUCIBLE_URL / CRUCIBLE_TOKEN) talks to the tRPC API.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [groupName, cmdName, ...rest] = argv;
  try {
    if (!groupName || groupName === '--help' || groupName === '-h' || groupName === 'help') {
      console.log(topHelp());
      return groupName ? 0 : 2;
    }
    const group = groups[groupName];
    if (!group) throw new CliError(`unknown command group "${groupName}"\n\n${topHelp()}`);
    const commands = await group.load();
    if (group.single) {
      const cmd = commands[0]!;
      const parsed = parseFor(cmd, cmdName === undefined ? [] : [cmdName, ...rest]);
      if (parsed.values.help) {
        console.log(`usage: ${cmd.usage}\n\n${cmd.summary}`);
        return 0;
      }
      return await cmd.run(parsed);
    }
    const groupHelp = () =>
      [
        `usage: crucible ${groupName} <command> [options]`,
        '',
        'commands:',
        ...commands.map((c) => `  ${c.name.split(' ').slice(1).join(' ').padEnd(10)} ${c.summary}`),
      ].join('\n');
    if (!cmdName || cmdName === '--help' || cmdName === '-h') {
      console.log(groupHelp());
      return cmdName ? 0 : 2;
    }
    const cmd = commands.find((c) => c.name === `${groupName} ${cmdName}`);
    if (!cmd) throw new CliError(`unknown command "${groupName} ${cmdName}"\n\n${groupHelp()}`);
    const parsed = parseFor(cmd, rest);
    if (parsed.values.help) {
      console.log(`usage: ${cmd.usage}\n\n${cmd.summary}`);
      return 0;
    }
    return await cmd.run(parsed);
  } catch (caught) {
    const e = apiError(caught) ?? caught;
    if (e instanceof CliError) {
      // Messages echo input (names, ids): printed terminal-safe like all text output.
      console.error(`crucible: ${terminalSafe(e.message)}`);
      return e.code;
    }
    console.error(`crucible: ${terminalSafe((e as Error).stack ?? String(e))}`);
    return 1;
  } finally {
    const { closeCliDatabase } = await import('./database');
    await closeCliDatabase();
  }
}
