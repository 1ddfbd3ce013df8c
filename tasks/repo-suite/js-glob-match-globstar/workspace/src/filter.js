const { matchGlob } = require('./match');

/** Paths matching any include pattern and no exclude pattern. */
function filterPaths(paths, include, exclude = []) {
  return paths.filter((p) => include.some((g) => matchGlob(g, p)) && !exclude.some((g) => matchGlob(g, p)));
}

module.exports = { filterPaths };
