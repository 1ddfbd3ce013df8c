import type { FormEvent, ReactNode } from 'react';

/** A filter field's label above its control (the audit log's and the logs page's filters). */
export const filterLabelClass = 'flex flex-col gap-1 text-xs font-medium text-slate-600';

/** A search form of filter fields in a responsive grid, applied on submit. */
export function FilterForm({ label, onSubmit, children }: { label: string; onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      role="search"
      aria-label={label}
      className="mb-3 grid grid-cols-2 gap-x-3 gap-y-2 md:grid-cols-3 xl:grid-cols-6"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
