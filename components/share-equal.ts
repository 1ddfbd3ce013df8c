/**
 * TanStack Query's structural sharing (`replaceEqualDeep`), made to see equal Dates as equal.
 * superjson gives every poll new Date objects (a run's createdAt, an event's `at`), which the
 * built-in sharing treats as changed, and so each object that holds one, up to the root: every
 * poll of an unchanged run handed the page new data and redrew what hangs off it. Here the
 * answer keeps every part of the previous one that is equal, Dates included (same time).
 */
export function shareEqual<T>(prev: unknown, next: T, depth = 0): T {
  if (prev === next) return prev as T;
  if (prev instanceof Date && next instanceof Date) return (prev.getTime() === next.getTime() ? prev : next) as T;
  if (depth > 500) return next;
  const array = isPlainArray(prev) && isPlainArray(next);
  if (!array && !(isPlainObject(prev) && isPlainObject(next))) return next;
  const a = prev as Record<string | number, unknown>;
  const b = next as Record<string | number, unknown>;
  const aSize = array ? (prev as unknown[]).length : Object.keys(a).length;
  const bKeys: (string | number)[] = array ? Array.from({ length: (next as unknown[]).length }, (_, i) => i) : Object.keys(b);
  const copy = (array ? new Array<unknown>(bKeys.length) : {}) as Record<string | number, unknown>;
  let equal = 0;
  for (const key of bKeys) {
    const v = shareEqual(a[key], b[key], depth + 1);
    copy[key] = v;
    if (v === a[key] && (array ? (key as number) < aSize : Object.prototype.hasOwnProperty.call(a, key))) equal++;
  }
  return (aSize === bKeys.length && equal === aSize ? prev : copy) as T;
}

const isPlainArray = (v: unknown): v is unknown[] => Array.isArray(v) && v.length === Object.keys(v).length;

function isPlainObject(o: unknown): o is Record<string, unknown> {
  if (Object.prototype.toString.call(o) !== '[object Object]') return false;
  const proto = Object.getPrototypeOf(o) as object | null;
  return proto === null || proto === Object.prototype;
}
