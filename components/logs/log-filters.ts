import { LOG_LEVELS, type LogLevel } from '@/core/log-records';

/**
 * The /logs page's filter state and how it becomes `logs.list` input, kept in the URL
 * (`?run=…&level=warn&text=timeout`) so a filtered view can be linked and reloaded, like the
 * audit page's (components/audit/audit-filters.ts). Pure, so it is tested without a browser.
 */
export type LogFilterState = {
  run: string;
  episode: string;
  worker: string;
  host: string;
  /** the lowest level shown; '' for all */
  level: LogLevel | '';
  text: string;
};

export const emptyLogFilters: LogFilterState = { run: '', episode: '', worker: '', host: '', level: '', text: '' };

const KEYS = ['run', 'episode', 'worker', 'host', 'level', 'text'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function filtersFromSearch(params: { get(name: string): string | null }): LogFilterState {
  const f = { ...emptyLogFilters };
  for (const k of KEYS) if (k !== 'level') f[k] = params.get(k) ?? '';
  const level = params.get('level') ?? '';
  f.level = (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : '';
  return f;
}

/** The query string for `f`: only what is set, so the plain page stays `/logs`. */
export function searchFromFilters(f: LogFilterState): string {
  const q = new URLSearchParams();
  for (const k of KEYS) if (f[k].trim() !== '') q.set(k, f[k].trim());
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** What the filters say that the API cannot take as given: a run or episode that is not an id. */
export function filterProblem(f: LogFilterState): string | null {
  if (f.run.trim() && !UUID.test(f.run.trim())) return 'Run must be a run id (a UUID, as in the run page’s address).';
  if (f.episode.trim() && !UUID.test(f.episode.trim())) return 'Episode must be an episode id (a UUID).';
  return null;
}

export function logsQuery(f: LogFilterState) {
  const trim = (s: string) => s.trim() || undefined;
  return {
    run: trim(f.run),
    episode: trim(f.episode),
    worker: trim(f.worker),
    host: trim(f.host),
    level: f.level || undefined,
    text: trim(f.text),
  };
}

export const activeFilterCount = (f: LogFilterState) => KEYS.filter((k) => f[k].trim() !== '').length;

/** Tailwind classes of each level's badge: quiet for routine levels, loud for the ones to act on. */
export const LEVEL_CLASSES: Record<LogLevel, string> = {
  trace: 'bg-slate-100 text-slate-500',
  debug: 'bg-slate-100 text-slate-600',
  info: 'bg-sky-100 text-sky-800',
  warn: 'bg-amber-100 text-amber-900',
  error: 'bg-red-100 text-red-800',
  fatal: 'bg-red-700 text-white',
};

/** The fields worth a glance beside the message (tool, duration, exit code…), as `key=value`. */
export function fieldSummary(fields: Record<string, unknown>, max = 6): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .slice(0, max)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}

/** A time offset as the timeline shows it: +0 ms, +1.25 s, +2 min 5 s. */
export function formatOffset(ms: number): string {
  if (ms < 1000) return `+${Math.round(ms)} ms`;
  if (ms < 60_000) return `+${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `+${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}
