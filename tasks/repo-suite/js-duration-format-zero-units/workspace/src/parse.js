const { UNITS } = require('./units');

const SIZE = Object.fromEntries(UNITS);

/** '1h 30m' -> 5400 */
function parseDuration(text) {
  let total = 0;
  for (const part of text.trim().split(/\s+/)) {
    const m = /^(\d+)([dhms])$/.exec(part);
    if (!m) throw new SyntaxError(`bad duration part: ${part}`);
    total += Number(m[1]) * SIZE[m[2]];
  }
  return total;
}

module.exports = { parseDuration };
