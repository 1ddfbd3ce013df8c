const { parseVersion, compare } = require('./version');
const { satisfies } = require('./range');

module.exports = { parseVersion, compare, satisfies };
