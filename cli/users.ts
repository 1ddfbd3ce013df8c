import { createInterface } from 'node:readline';
import { generatePassword } from '@/server/auth/passwords';
import { CliError, output, type Command } from './args';
import { apiOptions, apiTarget, cliApi, type ApiInputs } from './api';
import { table } from './format';

export const commands: Command[] = [
  {
    name: 'users add',
    summary: 'add a user (a password is generated and printed once unless given)',
    usage: 'crucible users add USERNAME --role admin|operator|reviewer|viewer [--password P] [--display-name NAME] [--json]',
    options: { ...apiOptions, role: { type: 'string' }, password: { type: 'string' }, 'display-name': { type: 'string' } },
    run: async ({ values, positionals }) => {
      const username = positionals[0];
      if (!username || !values.role) throw new CliError('USERNAME and --role are required\nusage: crucible users add USERNAME --role ROLE');
      const password = (values.password as string | undefined) ?? generatePassword();
      const api = await cliApi(values);
      const user = await api.users.create.mutate({
        username,
        role: values.role as ApiInputs['users']['create']['role'],
        password,
        displayName: values['display-name'] as string | undefined,
      });
      const shown = values.password ? undefined : password;
      output(!!values.json, { ...user, password: shown }, () => `added ${user.username} (${user.role})${shown ? `\npassword (shown once): ${shown}` : ''}`);
      return 0;
    },
  },
  {
    name: 'users list',
    summary: 'list users and roles',
    usage: 'crucible users list [--json]',
    options: apiOptions,
    run: async ({ values }) => {
      const api = await cliApi(values);
      const users = await api.users.list.query();
      output(!!values.json, users, () => table(users, ['username', 'role', 'displayName', 'createdAt', 'disabledAt', 'mustChangePassword']));
      return 0;
    },
  },
  {
    name: 'users set-role',
    summary: "change a user's role",
    usage: 'crucible users set-role USERNAME ROLE [--json]',
    options: apiOptions,
    run: async ({ values, positionals }) => {
      const [username, role] = positionals;
      if (!username || !role) throw new CliError('usage: crucible users set-role USERNAME ROLE');
      const api = await cliApi(values);
      const res = await api.users.setRole.mutate({ username, role: role as ApiInputs['users']['setRole']['role'] });
      output(!!values.json, res, () => `${username} is now ${role}`);
      return 0;
    },
  },
  {
    name: 'users reset-password',
    summary: 'reset a password: prints a one-time password; they must change it at next sign-in (ends their sessions, revokes their API tokens)',
    usage: 'crucible users reset-password USERNAME [--keep-tokens] [--json]\n  --keep-tokens  leave their API tokens working (by default a reset revokes them)',
    options: { ...apiOptions, 'keep-tokens': { type: 'boolean' } },
    run: async ({ values, positionals }) => {
      const username = positionals[0];
      if (!username) throw new CliError('usage: crucible users reset-password USERNAME [--keep-tokens]');
      const api = await cliApi(values);
      const res = await api.users.resetPassword.mutate({ username, revokeTokens: !values['keep-tokens'] });
      output(
        !!values.json,
        res,
        () =>
          `${res.username}: password reset, ${res.sessionsEnded} session(s) ended, ${values['keep-tokens'] ? 'API tokens kept' : `${res.tokensRevoked} API token(s) revoked`}\none-time password (shown once): ${res.password}\nthey must choose a new one when they sign in`,
      );
      return 0;
    },
  },
  {
    name: 'users disable',
    summary: 'disable a user (ends sessions, revokes tokens)',
    usage: 'crucible users disable USERNAME [--json]',
    options: apiOptions,
    run: async ({ values, positionals }) => {
      const username = positionals[0];
      if (!username) throw new CliError('usage: crucible users disable USERNAME');
      const api = await cliApi(values);
      const res = await api.users.disable.mutate({ username });
      output(!!values.json, res, () => `${username} disabled`);
      return 0;
    },
  },
];

/** `crucible account …`: the caller's own account, over the API with their token. */
export const accountCommands: Command[] = [
  {
    name: 'account change-password',
    summary: "change the token owner's password (ends their console sessions)",
    usage: 'crucible account change-password --url URL --token TOKEN [--json]   (prompts, or reads two lines from stdin: current, new)',
    options: apiOptions,
    run: async ({ values }) => {
      if (!apiTarget(values).url) {
        throw new CliError(
          "account change-password changes the password of the API token's user: pass --url and --token (or CRUCIBLE_URL / CRUCIBLE_TOKEN); an admin resets others' passwords with `crucible users reset-password NAME`",
        );
      }
      const [currentPassword, newPassword] = await readPasswords();
      const api = await cliApi(values);
      const res = await api.auth.changePassword.mutate({ currentPassword, newPassword });
      output(!!values.json, res, () => `password changed; ${res.sessionsEnded} console session(s) ended (API tokens keep working)`);
      return 0;
    },
  },
];

/** Current and new password: hidden prompts on a terminal, else the first two lines of stdin (never argv, which `ps` shows). */
async function readPasswords(): Promise<[string, string]> {
  if (!process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += String(chunk);
    const [current, next] = text.split(/\r?\n/);
    if (!current || !next) throw new CliError('give two lines on stdin: the current password, then the new one');
    return [current, next];
  }
  const current = await hiddenPrompt('current password: ');
  const next = await hiddenPrompt('new password: ');
  if ((await hiddenPrompt('new password again: ')) !== next) throw new CliError('the two new passwords differ; nothing changed');
  return [current, next];
}

function hiddenPrompt(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // Echo the question, not the keystrokes.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s) => {
    if (s.startsWith(question)) process.stderr.write(question);
  };
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    }),
  );
}
