import { intOption, output, type Command } from './args';
import { apiOptions, cliApi } from './api';
import { table } from './format';

export const commands: Command[] = [
  {
    name: 'audit verify',
    summary: 'recompute the audit hash chain; exits 1 if any row was edited or deleted',
    usage: 'crucible audit verify [--json]',
    options: apiOptions,
    run: async ({ values }) => {
      const api = await cliApi(values);
      const v = (await api('audit.verify')) as { ok: boolean; rows: number; headHash?: string; brokenAt?: number; reason?: string };
      output(!!values.json, v, () =>
        v.ok ? `audit log intact: ${v.rows} rows, head ${v.headHash}` : `AUDIT LOG TAMPERED: ${v.reason} (checked ${v.rows} rows)`);
      return v.ok ? 0 : 1;
    },
  },
  {
    name: 'audit list',
    summary: 'show recent audit rows',
    usage: 'crucible audit list [--page N] [--page-size N] [--target-type T] [--target-id ID] [--json]',
    options: { ...apiOptions, page: { type: 'string' }, 'page-size': { type: 'string' }, 'target-type': { type: 'string' }, 'target-id': { type: 'string' } },
    run: async ({ values }) => {
      const api = await cliApi(values);
      const res = (await api('audit.list', {
        page: intOption(values.page, 'page'), pageSize: intOption(values['page-size'], 'page-size'),
        targetType: values['target-type'], targetId: values['target-id'],
      })) as { items: Record<string, unknown>[]; total: number };
      output(!!values.json, res, () => `${table(res.items, ['seq', 'at', 'actor', 'action', 'targetType', 'targetId'])}\n${res.total} row(s)`);
      return 0;
    },
  },
];
