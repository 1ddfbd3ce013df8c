const { sleep: realSleep } = require('./sleep');

async function retry(fn, { retries = 3, baseMs = 100, maxMs = Infinity, shouldRetry = () => true, sleep = realSleep } = {}) {
  let attempt = 0;
  for (;;) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= retries) throw err;
      await sleep(baseMs * 2 ** attempt);
      attempt++;
    }
  }
}

module.exports = { retry };
