const { createLimiter } = require('./limiter');

module.exports = { createLimiter };
