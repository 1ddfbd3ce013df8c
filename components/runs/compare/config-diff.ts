/**
 * The compare page's config table: the run configs flattened to dotted paths
 * (`review.rate`, `isolation.routine`, …) and only the paths whose values differ between the
 * runs. Pure, so it is unit-tested.
 */

export type ConfigDiffRow = { path: string; values: string[] };

/** `{a: {b: 1}, c: [1, 2]}` → `{'a.b': '1', c: '[1,2]'}`; arrays stay whole (a list is one setting). */
export function flattenConfig(config: unknown, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (config && typeof config === 'object' && !Array.isArray(config)) {
    for (const [k, v] of Object.entries(config as Record<string, unknown>)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenConfig(v, path));
      else out[path] = v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);
    }
  } else if (prefix) out[prefix] = JSON.stringify(config);
  return out;
}

/**
 * The paths whose values are not the same in every config (absent counts as "—"), sorted;
 * `skip` leaves out paths that apply to none of the runs (repository settings of I/O runs).
 */
export function configDiff(configs: unknown[], skip?: (path: string) => boolean): ConfigDiffRow[] {
  const flat = configs.map((c) => flattenConfig(c));
  const paths = [...new Set(flat.flatMap((f) => Object.keys(f)))].filter((p) => !skip?.(p)).sort((a, b) => a.localeCompare(b));
  return paths.map((path) => ({ path, values: flat.map((f) => f[path] ?? '—') })).filter((r) => new Set(r.values).size > 1);
}

/**
 * The settings a reader compares runs by first, in this order: learning rate, algorithm, the
 * model (a registered model's name, then byte vs Hugging Face), the task suite.
 */
export const RANKED_CONFIG_FIELDS: readonly string[] = ['learningRate', 'algorithm', 'policy.model', 'policy.kind', 'suite'];

/** `fields` with the ranked ones first (in their rank), the rest after them in the order given. */
export function rankConfigFields(fields: readonly string[]): string[] {
  const rank = (f: string) => {
    const i = RANKED_CONFIG_FIELDS.indexOf(f);
    return i < 0 ? RANKED_CONFIG_FIELDS.length : i;
  };
  return fields
    .map((f, i) => ({ f, i, r: rank(f) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.f);
}
