import { CliError, output, type Command } from './args';
import { apiOptions, apiTarget, cliApi } from './api';
import { table } from './format';

export const commands: Command[] = [
  {
    name: 'tokens create',
    summary: 'create an API token (printed once; only its hash is stored)',
    usage: 'crucible tokens create --name NAME [--user USERNAME] [--json]\n  locally --user defaults to admin; over --url the token belongs to the caller',
    options: { ...apiOptions, name: { type: 'string' }, user: { type: 'string' } },
    run: async ({ values }) => {
      if (!values.name) throw new CliError('--name is required (what will use the token?)\nusage: crucible tokens create --name NAME [--user USERNAME]');
      const remote = !!apiTarget(values).url;
      const api = await cliApi(values);
      const t = await api.tokens.create.mutate({
        name: values.name as string,
        username: (values.user as string | undefined) ?? (remote ? undefined : 'admin'),
      });
      output(
        !!values.json,
        t,
        () => `token for ${t.username} (${t.role}), shown once:\n${t.token}\nuse it as: Authorization: Bearer <token>, or crucible --url URL --token <token>`,
      );
      return 0;
    },
  },
  {
    name: 'tokens list',
    summary: 'list API tokens (never the secrets)',
    usage: 'crucible tokens list [--json]',
    options: apiOptions,
    run: async ({ values }) => {
      const api = await cliApi(values);
      const rows = await api.tokens.list.query();
      output(!!values.json, rows, () => table(rows, ['id', 'name', 'prefix', 'username', 'createdAt', 'lastUsedAt', 'revokedAt']));
      return 0;
    },
  },
  {
    name: 'tokens revoke',
    summary: 'revoke an API token',
    usage: 'crucible tokens revoke TOKEN_ID [--json]',
    options: apiOptions,
    run: async ({ values, positionals }) => {
      const id = positionals[0];
      if (!id) throw new CliError('usage: crucible tokens revoke TOKEN_ID');
      const api = await cliApi(values);
      const res = await api.tokens.revoke.mutate({ id });
      output(!!values.json, res, () => `token ${id} revoked`);
      return 0;
    },
  },
];
