const cache = new Map();

function compile(pattern) {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += ch;
  }
  return new RegExp(`^${re}$`);
}

function matchGlob(pattern, path) {
  if (!cache.has(pattern)) cache.set(pattern, compile(pattern));
  return cache.get(pattern).test(path);
}

module.exports = { matchGlob };
