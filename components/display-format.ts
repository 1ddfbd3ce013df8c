/** Human-readable formatting for tables: relative ages, durations, numbers. */

const toDate = (d: Date | string | null | undefined) => (d == null ? null : d instanceof Date ? d : new Date(d));

export function timeAgo(d: Date | string | null | undefined, now = Date.now()): string {
  const date = toDate(d);
  if (!date) return '—';
  const s = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.round(h / 24)}d ago`;
}

export function formatDateTime(d: Date | string | null | undefined): string {
  const date = toDate(d);
  if (!date) return '—';
  return date.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

export function formatMs(ms: number | null | undefined): string {
  if (ms == null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;
}

export function durationBetween(a: Date | string | null | undefined, b: Date | string | null | undefined): string {
  const x = toDate(a);
  const y = toDate(b);
  if (!x || !y) return '—';
  return formatMs(y.getTime() - x.getTime());
}

export function formatNumber(v: number | null | undefined, digits = 3): string {
  if (v == null || Number.isNaN(v)) return '—';
  if (Math.abs(v) >= 1000 || (Math.abs(v) < 0.001 && v !== 0)) return v.toPrecision(digits);
  return Number(v.toFixed(digits)).toString();
}

export function shortHash(h: string | null | undefined, n = 12): string {
  if (!h) return '—';
  // "sha256:abcd…" → "abcd…": the algorithm prefix is the same on every row.
  const digest = h.includes(':') ? h.slice(h.indexOf(':') + 1) : h;
  return digest.length > n ? digest.slice(0, n) : digest;
}
