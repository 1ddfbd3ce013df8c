const { words } = require('./words');

const lower = (w) => w.toLowerCase();
const capital = (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();

function camelCase(s) {
  const ws = words(s);
  return ws.map((w, i) => (i === 0 ? lower(w) : capital(w))).join('');
}

const kebabCase = (s) => words(s).map(lower).join('-');
const snakeCase = (s) => words(s).map(lower).join('_');

module.exports = { camelCase, kebabCase, snakeCase };
