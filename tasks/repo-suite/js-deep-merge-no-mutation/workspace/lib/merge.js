const { isPlainObject } = require('./types');

function deepMerge(target, source, options = {}) {
  for (const [key, value] of Object.entries(source)) {
    if (isPlainObject(value) && isPlainObject(target[key])) {
      deepMerge(target[key], value, options);
    } else {
      target[key] = value;
    }
  }
  return target;
}

module.exports = { deepMerge };
