const { IniError } = require('./errors');
const { parseLine } = require('./lines');

function parseIni(text, options = {}) {
  const root = {};
  let section = root;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = parseLine(raw, i + 1);
    if (!line) return;
    if (line.kind === 'section') {
      section = root[line.name] ??= {};
    } else {
      section[line.key] = line.value;
    }
  });
  return root;
}

module.exports = { parseIni, IniError };
