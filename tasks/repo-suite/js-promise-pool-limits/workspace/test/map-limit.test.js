const { test } = require('node:test');
const assert = require('node:assert/strict');
const { mapLimit } = require('../src');

test('maps every item', async () => {
  const out = await mapLimit([1, 2, 3], 2, async (x) => x * 10);
  assert.deepEqual([...out].sort((a, b) => a - b), [10, 20, 30]);
});

test('empty input', async () => {
  assert.deepEqual(await mapLimit([], 3, async () => 1), []);
});
