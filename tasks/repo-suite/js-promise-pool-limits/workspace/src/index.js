const { mapLimit } = require('./map-limit');
const { deferred } = require('./deferred');

module.exports = { mapLimit, deferred };
