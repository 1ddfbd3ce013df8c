const { test } = require('node:test');
const assert = require('node:assert/strict');
const { formatDuration, parseDuration } = require('../src');

test('all units', () => {
  assert.equal(formatDuration(90061), '1d 1h 1m 1s');
});

test('parse', () => {
  assert.equal(parseDuration('1h 30m'), 5400);
  assert.throws(() => parseDuration('1x'), SyntaxError);
});

test('negative throws', () => {
  assert.throws(() => formatDuration(-1), RangeError);
});
