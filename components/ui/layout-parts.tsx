import type { ReactNode } from 'react';

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="truncate text-lg font-semibold text-slate-900">{title}</h1>
        {subtitle && <div className="mt-0.5 text-slate-500">{subtitle}</div>}
      </div>
      {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
    </div>
  );
}

export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="mb-4 rounded border border-slate-200 bg-white" aria-label={title}>
      <div className="flex items-center justify-between border-b border-slate-200 px-3 py-2">
        <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-600">{title}</h2>
        {actions}
      </div>
      <div className="p-3">{children}</div>
    </section>
  );
}

/**
 * Label/value pairs in a compact grid. Six columns only from 1280 px: at 1024 a sixth of the
 * page is narrower than a date ("2026-12-05 08:57:30Z"). Values wrap rather than truncate, so
 * a long one (a model name, a hash) is never cut off.
 */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-2 sm:grid-cols-3 xl:grid-cols-6">
      {items.map(([k, v]) => (
        <div key={k} className="min-w-0">
          <dt className="text-xs text-slate-500">{k}</dt>
          <dd className="font-medium tabular-nums wrap-break-word">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The table look. Tabular data goes through `DataTable` (./data-table.tsx), which uses these. */
export const tableClass = 'w-full border-collapse text-left text-sm';
export const thClass = 'border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs font-semibold uppercase tracking-wide text-slate-600';
export const tdClass = 'border-b border-slate-100 px-3 py-1.5 align-top';
/** Form control look without a width, for inline filters that set their own. */
export const controlClass =
  'rounded border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-xs focus:border-accent focus:outline-none focus:ring-1 focus:ring-accent aria-[invalid=true]:border-red-500 aria-[invalid=true]:ring-red-500';
export const inputClass = `${controlClass} w-full`;
