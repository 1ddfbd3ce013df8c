const { test } = require('node:test');
const assert = require('node:assert/strict');
const { retry } = require('../src/retry');

function recorder() {
  const waits = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

test('delays are capped at maxMs', async () => {
  const r = recorder();
  await assert.rejects(retry(async () => Promise.reject(new Error('x')), { retries: 6, baseMs: 100, maxMs: 1000, sleep: r.sleep }));
  assert.deepEqual(r.waits, [100, 200, 400, 800, 1000, 1000]);
});

test('non-retryable errors are thrown at once', async () => {
  const r = recorder();
  let calls = 0;
  const fatal = Object.assign(new Error('bad request'), { status: 400 });
  await assert.rejects(
    retry(async () => { calls++; throw fatal; }, { shouldRetry: (e) => e.status >= 500, sleep: r.sleep }),
    /bad request/,
  );
  assert.equal(calls, 1);
  assert.deepEqual(r.waits, []);
});

test('last error carries the attempt count', async () => {
  const r = recorder();
  let n = 0;
  const err = await retry(async () => { throw new Error(`fail ${++n}`); }, { retries: 2, sleep: r.sleep }).catch((e) => e);
  assert.equal(err.message, 'fail 3');
  assert.equal(err.attempts, 3);
});
