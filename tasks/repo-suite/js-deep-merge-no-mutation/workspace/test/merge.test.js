const { test } = require('node:test');
const assert = require('node:assert/strict');
const { deepMerge } = require('../lib/merge');

test('nested objects merge', () => {
  assert.deepEqual(deepMerge({ a: { b: 1 } }, { a: { c: 2 } }), { a: { b: 1, c: 2 } });
});

test('scalars and arrays are replaced', () => {
  assert.deepEqual(deepMerge({ a: 1, l: [1, 2] }, { a: 2, l: [3] }), { a: 2, l: [3] });
});

test('dates are values, not objects', () => {
  const d = new Date(0);
  assert.equal(deepMerge({ d: { x: 1 } }, { d }).d, d);
});
