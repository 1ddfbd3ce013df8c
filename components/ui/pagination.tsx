'use client';
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
