import { Fragment, type HTMLAttributes, type Key, type ReactNode, type TdHTMLAttributes, type ThHTMLAttributes } from 'react';
import { tableClass, tdClass, thClass } from './layout-parts';

/** `data-*` attributes (test ids, a row's action for a spec's selector), typed so JSX accepts them in a props object. */
type DataAttributes = { [name: `data-${string}`]: string | number | boolean | undefined };

export type DataColumn<T> = {
  /** Stable id of the column: the React key of its header and cells. */
  key: string;
  /** Header content; null for an unlabelled column (row actions). */
  header: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  /** Right-aligns header and cells (numbers). */
  align?: 'left' | 'right';
  /** Classes added to each cell of the column, or per row (a warning colour). */
  className?: string | ((row: T) => string);
  /** Other attributes of a cell: a title, a test id. */
  cellProps?: (row: T) => TdHTMLAttributes<HTMLTableCellElement> & DataAttributes;
  headerClassName?: string;
  /** Other attributes of the header cell: a title, `aria-sort`. */
  headerProps?: ThHTMLAttributes<HTMLTableCellElement> & DataAttributes;
  /** Width class of the column's `<col>` (with `fixed`). */
  width?: string;
};

export type DataTableProps<T> = {
  /** The table's accessible name (`aria-label`): how specs and screen readers find it. */
  label: string;
  columns: readonly DataColumn<T>[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => Key;
  /** `data-testid` of every body row. */
  rowTestId?: string;
  /** Other attributes of a body row: a class, `data-*`. */
  rowProps?: (row: T, index: number) => HTMLAttributes<HTMLTableRowElement> & DataAttributes;
  /** Rows rendered right after a row's own (an expanded row's details), full `<tr>` elements. */
  afterRow?: (row: T, index: number) => ReactNode;
  /**
   * What to show when there are no rows: a string reads as a muted line, any other node as
   * itself (an `EmptyState`). Shown in place of the table, or, with `emptyInTable`, as one row
   * under the headers. Without it an empty table keeps its headers and no rows.
   */
  empty?: ReactNode;
  emptyInTable?: boolean;
  /** A visible caption above the rows. */
  caption?: ReactNode;
  /** `data-testid` of the `<table>`. */
  testId?: string;
  /** As wide as its content rather than the container. */
  fit?: boolean;
  /** `table-layout: fixed`, the columns' `width` classes setting their widths. */
  fixed?: boolean;
  /** Classes added to the `<table>`. */
  className?: string;
  /**
   * Classes of the `<div>` around the table and footer (default: horizontal scroll when too
   * wide); null for no wrapper, where the caller's own element scrolls.
   */
  wrapperClassName?: string | null;
  /** Under the table, inside the wrapper: pagination, a "load more" button. */
  footer?: ReactNode;
};

const cx = (...parts: (string | false | null | undefined)[]) => parts.filter(Boolean).join(' ');

/**
 * The console's one table: typed columns (header, cell renderer, alignment, classes), a row key
 * and row test ids, an empty state, an optional caption and footer, in the shared table look
 * (`tableClass`, `thClass`, `tdClass`).
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  rowTestId,
  rowProps,
  afterRow,
  empty,
  emptyInTable = false,
  caption,
  testId,
  fit = false,
  fixed = false,
  className,
  wrapperClassName = 'overflow-x-auto',
  footer,
}: DataTableProps<T>) {
  const emptyNode = typeof empty === 'string' ? <p className="text-sm text-slate-500">{empty}</p> : empty;
  if (rows.length === 0 && empty !== undefined && !emptyInTable) return <>{emptyNode}</>;
  const widths = fixed && columns.some((c) => c.width);
  const table = (
    <>
      <table
        className={cx(fit ? tableClass.replace('w-full', 'w-auto') : tableClass, fixed && 'table-fixed', className)}
        aria-label={label}
        data-testid={testId}
      >
        {caption && <caption className="caption-top pb-1 text-left text-xs text-slate-500">{caption}</caption>}
        {widths && (
          <colgroup>
            {columns.map((c) => (
              <col key={c.key} className={c.width} />
            ))}
          </colgroup>
        )}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} {...c.headerProps} className={cx(thClass, c.align === 'right' && 'text-right', c.headerClassName)}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && empty !== undefined ? (
            <tr>
              <td className={cx(tdClass, 'text-slate-500')} colSpan={columns.length}>
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((row, i) => {
              const props = rowProps?.(row, i);
              return (
                <Fragment key={rowKey(row, i)}>
                  <tr data-testid={rowTestId} {...props}>
                    {columns.map((c) => (
                      <td
                        key={c.key}
                        {...c.cellProps?.(row)}
                        className={cx(tdClass, c.align === 'right' && 'text-right', typeof c.className === 'function' ? c.className(row) : c.className)}
                      >
                        {c.cell(row, i)}
                      </td>
                    ))}
                  </tr>
                  {afterRow?.(row, i)}
                </Fragment>
              );
            })
          )}
        </tbody>
      </table>
      {footer}
    </>
  );
  return wrapperClassName === null ? table : <div className={wrapperClassName}>{table}</div>;
}
