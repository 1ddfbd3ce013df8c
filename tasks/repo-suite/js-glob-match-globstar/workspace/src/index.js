const { matchGlob } = require('./match');
const { filterPaths } = require('./filter');

module.exports = { matchGlob, filterPaths };
