/**
 * Where a value holds a NUL character (U+0000), for refusing it at the door: PostgreSQL's
 * text and jsonb cannot store it, so one reaching a query is an opaque 500 instead of a
 * 400 that names the field (issue 31). Walks strings, object keys and values, and arrays,
 * a bounded depth down (deeper input is left to the schema that reads it).
 */
export function nulCharacterAt(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') {
    const at = value.indexOf('\u0000');
    if (at < 0) return null;
    // in multi-line text (a task file), the line helps more than an offset
    return value.includes('\n') ? ` (line ${value.slice(0, at).split('\n').length})` : '';
  }
  if (depth > 64 || value === null || typeof value !== 'object') return null;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof k === 'string' && k.includes('\u0000')) return `.${JSON.stringify(k)} (its name)`;
    const inner = nulCharacterAt(v, depth + 1);
    if (inner !== null) return `${typeof k === 'number' ? `[${k}]` : `.${k}`}${inner}`;
  }
  return null;
}

/** The message for a field holding a NUL character, or null when none does; `hint` says what to do instead. */
export function nulCharacterProblem(value: unknown, hint = 'remove it'): string | null {
  const at = nulCharacterAt(value);
  if (at === null) return null;
  const where = at.replace(/^\./, '');
  return `${where.startsWith(' ') || where === '' ? `the input${where}` : where} contains a NUL character (\\0 or \\u0000), which cannot be stored or searched; ${hint}`;
}
