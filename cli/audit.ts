import { intOption, output, type Command } from './args';
import { apiOptions, cliApi, type ApiInputs } from './api';
import { table } from './format';

export const commands: Command[] = [
  {
    name: 'audit verify',
    summary: 'recompute the audit hash chain and check it against the latest anchor (and --expect-head); exits 1 if rows were edited, deleted or truncated',
    usage: 'crucible audit verify [--expect-head HASH] [--json]',
    options: { ...apiOptions, 'expect-head': { type: 'string' } },
    run: async ({ values }) => {
      const api = await cliApi(values);
      const expectHead = values['expect-head'] as string | undefined;
      const v = await api.audit.verify.query(expectHead ? { expectHead } : undefined);
      output(!!values.json, v, () => {
        const warning = v.warning ? [`warning: ${v.warning}`] : [];
        if (!v.ok) return [`AUDIT LOG TAMPERED: ${v.reason} (checked ${v.rows} rows)`, ...warning].join('\n');
        const against = [v.anchor && `the anchor of ${v.anchor.at} (row ${v.anchor.seq})`, expectHead && 'the expected head'].filter(Boolean);
        return [
          `audit log intact: ${v.rows} rows${against.length ? `, consistent with ${against.join(' and ')}` : ''}`,
          `head: row ${v.headSeq} ${v.headHash}`,
          // The anchor file lives beside the database; a copy elsewhere survives someone with access to both.
          'keep this head somewhere else too and check against it later with --expect-head',
          ...warning,
        ].join('\n');
      });
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
      const res = await api.audit.list.query({
        page: intOption(values.page, 'page'),
        pageSize: intOption(values['page-size'], 'page-size'),
        targetType: values['target-type'] as ApiInputs['audit']['list']['targetType'],
        targetId: values['target-id'] as string | undefined,
      });
      output(!!values.json, res, () => `${table(res.items, ['seq', 'at', 'actor', 'action', 'targetType', 'targetId'])}\n${res.total} row(s)`);
      return 0;
    },
  },
];
