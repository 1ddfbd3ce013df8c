const { formatDuration } = require('./format');
const { parseDuration } = require('./parse');

module.exports = { formatDuration, parseDuration };
