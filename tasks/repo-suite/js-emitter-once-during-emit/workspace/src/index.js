const { Emitter } = require('./emitter');

module.exports = { Emitter };
