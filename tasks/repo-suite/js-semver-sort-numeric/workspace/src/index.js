const { compareVersions } = require('./compare');
const { sortVersions, latest } = require('./sort');

module.exports = { compareVersions, sortVersions, latest };
