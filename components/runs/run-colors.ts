/**
 * Line colours that stay with what they mean: a run keeps its colour on /runs/compare whether
 * the page is grouped or not, and when runs join or leave the comparison; a group (a value of
 * the group-by field) keeps its colour whichever other groups are drawn. As W&B does, a
 * colour belongs to the thing, not to its place in the current list. Pure, so it is
 * unit-tested (run-colors.unit.test.ts).
 *
 * The rule: each key (a run id; `field=value` for a group) prefers the palette colour its
 * hash picks. Keys are placed in a fixed order (the runs in the order they were selected, the
 * groups by value); one whose colour an earlier key holds takes the next free colour after
 * it. So adding a run never changes the others' colours, and removing one changes only a
 * later run that had stepped aside for it (which takes back the colour its id picks); with no
 * per-run colour stored, that is as stable as distinct colours allow. Past ten keys colours
 * repeat, least used first.
 */

/** The console's line colours, cycled by series on a run's own charts. */
export const palette = ['#4f46e5', '#dc2626', '#059669', '#d97706', '#0891b2', '#9333ea', '#db2777', '#65a30d'];

/**
 * Ten colours any two of which tell apart as thin lines on white (d3's category10): runs and
 * groups on /runs/compare, where a hash may put any two side by side (the console's own
 * eight hold near pairs: red and pink, indigo and purple).
 */
export const comparePalette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** FNV-1a, 32 bits: a stable, well-spread hash of a string (the same in every browser and on the server). */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Each key's colour: its hashed colour where no earlier key took it, else the next least-used one after it. */
export function stableColors(keys: readonly string[], colors: readonly string[] = comparePalette): Map<string, string> {
  const used = new Array<number>(colors.length).fill(0);
  const out = new Map<string, string>();
  for (const key of keys) {
    if (out.has(key)) continue;
    const preferred = hashKey(key) % colors.length;
    const least = Math.min(...used);
    let i = preferred;
    while (used[i]! > least) i = (i + 1) % colors.length;
    used[i]!++;
    out.set(key, colors[i]!);
  }
  return out;
}

/** The runs' colours, keyed by run id: `ids` in the order the runs were selected (the URL's `ids`). */
export const runColors = (ids: readonly string[]): Map<string, string> => stableColors(ids);

/** The key a group's colour hangs on: the field and its value (`learningRate=0.001`). */
export const groupColorKey = (field: string, value: string) => `${field}=${value}`;

/** The groups' colours, keyed by value: `values` in the order the groups are drawn (by value). */
export function groupColors(field: string, values: readonly string[]): Map<string, string> {
  const byKey = stableColors(values.map((v) => groupColorKey(field, v)));
  return new Map(values.map((v) => [v, byKey.get(groupColorKey(field, v))!]));
}
