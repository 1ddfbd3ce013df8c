const { UNITS } = require('./units');

function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`not a duration: ${seconds}`);
  let rest = Math.floor(seconds);
  const parts = [];
  for (const [suffix, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${suffix}`);
  }
  return parts.join(' ');
}

module.exports = { formatDuration };
