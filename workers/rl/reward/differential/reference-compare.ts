/**
 * The documented io comparison, written independently of ../compare.ts so that the
 * differential test checks the harness against the specification, not against itself:
 * booleans never equal numbers; null equals only None/undefined/null; tuples arrive as
 * lists; numbers compare exactly when both are integral, else within 1e-9 relative;
 * objects/dicts compare by key set, then values.
 */

/** What a reference driver (io-driver.py / io-driver.mjs) observed the candidate return. */
export type Observed =
  | null
  | { t: 'bool'; v: boolean }
  | { t: 'num'; v: number }
  | { t: 'bigint'; v: string }
  | { t: 'nonfinite'; v: string }
  | { t: 'str'; v: string }
  | { t: 'list'; v: Observed[] }
  | { t: 'obj'; v: Record<string, Observed> }
  | { t: 'other'; v: string };

const REL_TOL = 1e-9;

function sameNumber(got: number, expected: number): boolean {
  if (Number.isInteger(got) && Number.isInteger(expected)) return got === expected;
  // Relative to the larger magnitude, like Python's math.isclose(rel_tol=1e-9).
  return Math.abs(got - expected) <= REL_TOL * Math.max(Math.abs(got), Math.abs(expected));
}

export function sameValue(got: Observed, expected: unknown): boolean {
  if (expected === null || expected === undefined) return got === null;
  if (got === null) return false;
  if (typeof expected === 'boolean') return got.t === 'bool' && got.v === expected;
  if (typeof expected === 'number') {
    if (got.t === 'num') return sameNumber(got.v, expected);
    // JSON cannot hold integers past 2^53 exactly; accept the one the JSON number denotes.
    return got.t === 'bigint' && Number.isInteger(expected) && BigInt(got.v) === BigInt(expected);
  }
  if (typeof expected === 'string') return got.t === 'str' && got.v === expected;
  if (Array.isArray(expected)) {
    return got.t === 'list' && got.v.length === expected.length && got.v.every((g, i) => sameValue(g, expected[i]));
  }
  if (typeof expected === 'object') {
    if (got.t !== 'obj') return false;
    const want = expected as Record<string, unknown>;
    const gotKeys = Object.keys(got.v).sort();
    const wantKeys = Object.keys(want).sort();
    if (gotKeys.length !== wantKeys.length || gotKeys.some((k, i) => k !== wantKeys[i])) return false;
    return wantKeys.every((k) => sameValue(got.v[k]!, want[k]));
  }
  return false;
}

/** A short rendering for failure details. */
export function show(v: Observed): string {
  if (v === null) return 'null';
  switch (v.t) {
    case 'list':
      return `[${v.v.map(show).join(', ')}]`;
    case 'obj':
      return `{${Object.entries(v.v)
        .map(([k, x]) => `${JSON.stringify(k)}: ${show(x)}`)
        .join(', ')}}`;
    case 'str':
      return JSON.stringify(v.v);
    case 'other':
      return `<${v.v}>`;
    default:
      return String(v.v);
  }
}
