/**
 * Where a value holds a NUL character (U+0000), for refusing it at the door: PostgreSQL's
 * text and jsonb cannot store it, so one reaching a query is an opaque 500 instead of a
 * 400 that names the field (issue 31). Walks strings, object keys and values, and arrays at
 * any depth (iteratively: a deeply nested input cannot overflow the stack).
 */
export function nulCharacterAt(value: unknown): string | null {
  const stack: { v: unknown; at: string }[] = [{ v: value, at: '' }];
  while (stack.length) {
    const { v, at } = stack.pop()!;
    if (typeof v === 'string') {
      const i = v.indexOf('\u0000');
      // in multi-line text (a task file), the line helps more than an offset
      if (i >= 0) return `${at}${v.includes('\n') ? ` (line ${v.slice(0, i).split('\n').length})` : ''}`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
    for (let k = entries.length - 1; k >= 0; k--) {
      const [key, inner] = entries[k]!;
      if (typeof key === 'string' && key.includes('\u0000')) return `${at}.${JSON.stringify(key)} (its name)`;
      stack.push({ v: inner, at: typeof key === 'number' ? `${at}[${key}]` : `${at}.${key}` });
    }
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
