const { parseDate, DateParseError } = require('./parse');

module.exports = { parseDate, DateParseError };
