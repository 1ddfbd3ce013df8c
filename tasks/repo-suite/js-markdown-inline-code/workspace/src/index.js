const { renderInline } = require('./inline');

module.exports = { renderInline };
