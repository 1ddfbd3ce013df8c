/**
 * Type-strict comparison of a harness-serialised value with a test's expected JSON value.
 * Booleans never equal numbers, strings never equal lists, null only equals null; numbers
 * compare exactly when integral and within 1e-9 (relative) otherwise.
 */
export type Typed =
  | null
  | { t: 'bool'; v: boolean }
  | { t: 'num'; v: number }
  | { t: 'float'; v: string }
  | { t: 'bigint'; v: string }
  | { t: 'str'; v: string }
  | { t: 'list'; v: Typed[] }
  | { t: 'obj'; v: Record<string, Typed> };

export function matches(got: Typed, expected: unknown): boolean {
  if (expected === null) return got === null;
  if (got === null) return false;
  switch (typeof expected) {
    case 'boolean':
      return got.t === 'bool' && got.v === expected;
    case 'number':
      if (got.t === 'num') {
        if (Number.isInteger(expected) && Number.isInteger(got.v)) return got.v === expected;
        return Math.abs(got.v - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
      }
      return got.t === 'bigint' && Number.isSafeInteger(expected) === false && got.v === BigInt(Math.trunc(expected)).toString();
    case 'string':
      return got.t === 'str' && got.v === expected;
    case 'object': {
      if (Array.isArray(expected)) return got.t === 'list' && got.v.length === expected.length && got.v.every((g, i) => matches(g, expected[i]));
      if (got.t !== 'obj') return false;
      const ek = Object.keys(expected as object).sort();
      const gk = Object.keys(got.v).sort();
      return ek.length === gk.length && ek.every((k, i) => k === gk[i] && matches(got.v[k]!, (expected as Record<string, unknown>)[k]));
    }
    default:
      return false;
  }
}

/** A short rendering of a typed value for observations and review screens. */
export function render(v: Typed): string {
  if (v === null) return 'None/null';
  switch (v.t) {
    case 'list':
      return `[${v.v.map(render).join(', ')}]`;
    case 'obj':
      return `{${Object.entries(v.v)
        .map(([k, x]) => `${JSON.stringify(k)}: ${render(x)}`)
        .join(', ')}}`;
    case 'str':
      return JSON.stringify(v.v);
    default:
      return String(v.v);
  }
}
