const { renderTable } = require('./table');

module.exports = { renderTable };
