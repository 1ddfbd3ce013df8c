class PathError extends Error {}

/** The steps of a path: keys (strings). */
function parsePath(path) {
  if (typeof path !== 'string' || path === '') throw new PathError('a path is a non-empty string');
  return path.split('.');
}

module.exports = { parsePath, PathError };
