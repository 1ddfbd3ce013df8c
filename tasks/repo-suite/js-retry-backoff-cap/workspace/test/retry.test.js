const { test } = require('node:test');
const assert = require('node:assert/strict');
const { retry } = require('../src/retry');

function recorder() {
  const waits = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

test('returns the first success', async () => {
  const r = recorder();
  let calls = 0;
  const value = await retry(async () => (++calls < 3 ? Promise.reject(new Error('flaky')) : 'ok'), { sleep: r.sleep });
  assert.equal(value, 'ok');
  assert.deepEqual(r.waits, [100, 200]);
});

test('gives up after retries', async () => {
  const r = recorder();
  await assert.rejects(retry(async () => Promise.reject(new Error('down')), { retries: 2, sleep: r.sleep }), /down/);
  assert.equal(r.waits.length, 2);
});
