const { compare, parseVersion } = require('./version');

const OPS = {
  '>=': (c) => c >= 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '<': (c) => c < 0,
  '=': (c) => c === 0,
};

function satisfies(version, range) {
  const m = /^(>=|<=|>|<|=)?\s*(\S+)$/.exec(range.trim());
  if (!m) throw new TypeError(`invalid range: ${range}`);
  const op = m[1] ?? '=';
  return OPS[op](compare(parseVersion(version), parseVersion(m[2])));
}

module.exports = { satisfies };
