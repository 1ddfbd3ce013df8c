const { parsePath } = require('./path');

function get(obj, path, fallback) {
  let node = obj;
  for (const step of parsePath(path)) {
    if (node === null || node === undefined) return fallback;
    node = node[step];
  }
  return node === undefined ? fallback : node;
}

function set(obj, path, value) {
  const steps = parsePath(path);
  let node = obj;
  steps.slice(0, -1).forEach((step) => {
    if (node[step] === null || typeof node[step] !== 'object') node[step] = {};
    node = node[step];
  });
  node[steps.at(-1)] = value;
  return obj;
}

module.exports = { get, set };
