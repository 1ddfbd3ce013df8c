import { generatePassword } from '@/server/auth/passwords';
import { CliError, output, type Command } from './args';
import { apiOptions, cliApi } from './api';
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
      const user = (await api('users.create', { username, role: values.role, password, displayName: values['display-name'] })) as { username: string; role: string };
      const shown = values.password ? undefined : password;
      output(!!values.json, { ...user, password: shown }, () =>
        `added ${user.username} (${user.role})${shown ? `\npassword (shown once): ${shown}` : ''}`);
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
      const users = (await api('users.list')) as Record<string, unknown>[];
      output(!!values.json, users, () => table(users, ['username', 'role', 'displayName', 'createdAt', 'disabledAt']));
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
      const res = await api('users.setRole', { username, role });
      output(!!values.json, res, () => `${username} is now ${role}`);
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
      const res = await api('users.disable', { username });
      output(!!values.json, res, () => `${username} disabled`);
      return 0;
    },
  },
];
