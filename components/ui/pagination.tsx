'use client';
import type { ReactNode } from 'react';
import { Button } from './button';

export function Pagination({ page, pageSize, total, onPage }: { page: number; pageSize: number; total: number; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const from = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  return (
    <div className="flex items-center justify-between px-3 py-2 text-slate-600">
      <span className="tabular-nums">
        {from}–{to} of {total}
      </span>
      <div className="flex items-center gap-2">
        <Button disabled={page <= 1} onClick={() => onPage(page - 1)} aria-label="Previous page">
          ‹ Prev
        </Button>
        <span className="tabular-nums">
          Page {page} / {pages}
        </span>
        <Button disabled={page >= pages} onClick={() => onPage(page + 1)} aria-label="Next page">
          Next ›
        </Button>
      </div>
    </div>
  );
}

/**
 * Newer / Older buttons over keyset pages (newest first): the audit log and the logs page.
 * `label` names the nav ("Audit pages"), `noun` the rows ("entries") for the buttons' names.
 */
export function KeysetPager({
  label,
  noun,
  summary,
  testId,
  hasNewer,
  hasOlder,
  onNewer,
  onOlder,
}: {
  label: string;
  noun: string;
  summary: ReactNode;
  testId: string;
  hasNewer: boolean;
  hasOlder: boolean;
  onNewer: () => void;
  onOlder: () => void;
}) {
  return (
    <nav aria-label={label} className="flex items-center justify-between px-3 py-2 text-slate-600">
      <span className="tabular-nums" data-testid={testId}>
        {summary}
      </span>
      <div className="flex items-center gap-2">
        <Button disabled={!hasNewer} onClick={onNewer} aria-label={`Newer ${noun}`}>
          ‹ Newer
        </Button>
        <Button disabled={!hasOlder} onClick={onOlder} aria-label={`Older ${noun}`}>
          Older ›
        </Button>
      </div>
    </nav>
  );
}
