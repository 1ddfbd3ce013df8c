/** -1, 0 or 1 as version a is lower than, equal to or higher than b. */
function compareVersions(a, b) {
  const pa = a.split('.');
  const pb = b.split('.');
  const n = Math.max(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

module.exports = { compareVersions };
