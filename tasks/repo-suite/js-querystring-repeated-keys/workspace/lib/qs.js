const { decode, encode } = require('./codec');

function parseQuery(query) {
  const out = {};
  const text = query.startsWith('?') ? query.slice(1) : query;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    out[key] = value;
  }
  return out;
}

function stringifyQuery(params) {
  return Object.entries(params)
    .map(([k, v]) => `${encode(k)}=${encode(String(v))}`)
    .join('&');
}

module.exports = { parseQuery, stringifyQuery };
