const { get, set } = require('./access');
const { parsePath, PathError } = require('./path');

module.exports = { get, set, parsePath, PathError };
