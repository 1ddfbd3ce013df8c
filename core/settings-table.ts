import { z } from 'zod';
import { settingsSchema } from './settings';

/** README's configuration table sits between these markers; `npm run settings:table` rewrites it. */
export const TABLE_BEGIN = '<!-- settings-table: generated from core/settings.ts by `npm run settings:table`; edit the schema, not this table -->';
export const TABLE_END = '<!-- /settings-table -->';

const MiB = 1024 * 1024;

/** The default column: the schema's default as a reader would write it. */
function shownDefault(key: string, field: z.ZodType): string {
  if (!(field instanceof z.ZodDefault)) return '—';
  const value: unknown = field._zod.def.defaultValue;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number' && key.endsWith('_BYTES') && value % MiB === 0) return `${value} (${value / MiB} MiB)`;
  if (typeof value === 'string') return `\`${value}\``;
  return String(value);
}

/** One row per setting, in the schema's order: `| name | default | description |`. */
export function settingsRows(): { key: string; shownDefault: string; description: string | undefined }[] {
  return Object.entries(settingsSchema.shape).map(([key, field]) => ({
    key,
    shownDefault: shownDefault(key, field as z.ZodType),
    description: (field as z.ZodType).description,
  }));
}

/** The README's configuration table (markdown, with its markers), generated from the schema. */
export function settingsTable(): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const rows = settingsRows().map((r) => `| \`${r.key}\` | ${escape(r.shownDefault)} | ${escape(r.description ?? '')} |`);
  return [TABLE_BEGIN, '| variable | default | meaning |', '|---|---|---|', ...rows, TABLE_END].join('\n');
}

/** `text` (a README) with its table between the markers replaced by `table`; throws without the markers. */
export function withSettingsTable(text: string, table = settingsTable()): string {
  const begin = text.indexOf(TABLE_BEGIN);
  const end = text.indexOf(TABLE_END);
  if (begin < 0 || end < begin)
    throw new Error(`README.md has no configuration table markers (${TABLE_BEGIN} … ${TABLE_END}); put them around the table under "## Configuration"`);
  return text.slice(0, begin) + table + text.slice(end + TABLE_END.length);
}
