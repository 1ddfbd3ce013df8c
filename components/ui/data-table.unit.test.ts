import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DataTable, type DataColumn, type DataTableProps } from './data-table';

type Row = { id: string; n: number };
const columns: DataColumn<Row>[] = [
  { key: 'id', header: 'Id', className: 'font-mono', cellProps: (r) => ({ title: `row ${r.id}`, 'data-testid': 'cell-id' }), cell: (r) => r.id },
  { key: 'n', header: 'N', align: 'right', headerProps: { 'aria-sort': 'none' }, className: (r) => (r.n > 1 ? 'text-amber-700' : ''), cell: (r) => r.n },
];
const render = (props: Partial<DataTableProps<Row>>) =>
  renderToStaticMarkup(createElement(DataTable<Row>, { label: 'Things', columns, rows: [], rowKey: (r: Row) => r.id, ...props }));

describe('DataTable', () => {
  it('renders headers, cells, row test ids and attributes with the shared look', () => {
    const html = render({
      rows: [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ],
      rowTestId: 'thing-row',
      testId: 'things',
      rowProps: (r) => ({ 'data-id': r.id }),
    });
    expect(html).toContain('aria-label="Things"');
    expect(html).toContain('data-testid="things"');
    expect(html.match(/data-testid="thing-row"/g)).toHaveLength(2);
    expect(html).toContain('data-id="b"');
    expect(html).toContain('title="row a"');
    expect(html).toMatch(/<th aria-sort="none" class="[^"]*text-right">N<\/th>/);
    expect(html).toMatch(/<td class="[^"]*text-right text-amber-700">2<\/td>/);
    expect(html).toMatch(/^<div class="overflow-x-auto"><table class="w-full /);
  });

  it('shows the empty state in place of the table, or as a row under the headers', () => {
    expect(render({ empty: 'Nothing here.' })).toBe('<p class="text-sm text-slate-500">Nothing here.</p>');
    const inTable = render({ empty: 'nothing waits', emptyInTable: true, fit: true });
    expect(inTable).toContain('class="w-auto ');
    expect(inTable).toContain('<th');
    expect(inTable).toMatch(/<td class="[^"]*" colSpan="2">nothing waits<\/td>/);
    // no empty state given: the headers and no rows
    expect(render({})).toContain('<tbody></tbody>');
  });

  it('fixed layout with column widths, a footer, no wrapper when asked', () => {
    const html = render({
      rows: [{ id: 'a', n: 1 }],
      fixed: true,
      wrapperClassName: null,
      columns: [{ ...columns[0]!, width: 'w-9' }, columns[1]!],
      footer: createElement('nav', null, 'pages'),
    });
    expect(html).toMatch(/^<table class="[^"]*table-fixed"/);
    expect(html).toContain('<colgroup><col class="w-9"/><col/></colgroup>');
    expect(html).toMatch(/<\/table><nav>pages<\/nav>$/);
  });
});
