const { IniError } = require('./errors');

/** One line: null for blanks and comments, a section header, or a key/value pair. */
function parseLine(raw, lineNo) {
  const line = raw.trim();
  if (line === '' || line.startsWith(';') || line.startsWith('#')) return null;
  const section = /^\[([^\]]+)\]$/.exec(line);
  if (section) return { kind: 'section', name: section[1].trim() };
  const eq = line.indexOf('=');
  if (eq <= 0) throw new IniError(lineNo, `expected key = value, got ${JSON.stringify(line)}`);
  return { kind: 'pair', key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() };
}

module.exports = { parseLine };
