const { compareVersions } = require('./compare');

function sortVersions(versions) {
  return [...versions].sort(compareVersions);
}

function latest(versions) {
  return sortVersions(versions).at(-1);
}

module.exports = { sortVersions, latest };
