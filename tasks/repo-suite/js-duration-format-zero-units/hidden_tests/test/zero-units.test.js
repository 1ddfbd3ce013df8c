const { test } = require('node:test');
const assert = require('node:assert/strict');
const { formatDuration, parseDuration } = require('../src');

test('zero units are omitted', () => {
  assert.equal(formatDuration(3600), '1h');
  assert.equal(formatDuration(86460), '1d 1m');
});

test('zero is 0s', () => {
  assert.equal(formatDuration(0), '0s');
});

test('mixed units', () => {
  assert.equal(formatDuration(3661), '1h 1m 1s');
});

test('round trip', () => {
  for (const s of [1, 59, 61, 3601, 90000]) assert.equal(parseDuration(formatDuration(s)), s);
});
