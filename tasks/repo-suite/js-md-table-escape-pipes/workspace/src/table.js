const { cellText } = require('./cell');

function renderTable(headers, rows) {
  const table = [headers, ...rows].map((r) => r.map(cellText));
  const widths = headers.map((_, i) => Math.max(3, ...table.map((r) => (r[i] ?? '').length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(table[0]), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...table.slice(1).map(line)].join('\n');
}

module.exports = { renderTable };
