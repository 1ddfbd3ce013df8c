const BASE = 'http://crucible.invalid';

/**
 * Where to go after sign-in, from `?next=`: only a same-origin path (`/runs/…`), else `/`.
 * Parsed the way the browser will parse it (WHATWG URL: `\` counts as `/`, tabs and newlines
 * vanish), so `//host`, `/\host`, `/\t/host`, `https://x` and `javascript:` all fall back.
 * The normalised path is returned, and refused if normalising made it protocol-relative
 * (`/.//host` becomes `//host`).
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return '/';
  // Back to the sign-in page would loop.
  if (url.pathname === '/login') return '/';
  return path;
}
