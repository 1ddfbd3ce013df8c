const { checkOptions } = require('./options');

function createLimiter(options) {
  const { limit, windowMs, now } = checkOptions(options);
  const counts = new Map();
  let windowStart = null;

  return {
    check(key) {
      const t = now();
      if (windowStart === null || t - windowStart > windowMs) {
        windowStart = t;
        counts.clear();
      }
      const used = (counts.get(key) ?? 0) + 1;
      counts.set(key, used);
      return { allowed: used <= limit + 1, remaining: limit - used, resetAt: windowStart + windowMs };
    },
  };
}

module.exports = { createLimiter };
