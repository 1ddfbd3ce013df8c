const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseDate, DateParseError } = require('../src');

const now = new Date('2024-03-01T10:00:00Z');

test('words', () => {
  assert.equal(parseDate('Tomorrow', now).toISOString(), '2024-03-02T10:00:00.000Z');
  assert.equal(parseDate('yesterday', now).toISOString(), '2024-02-29T10:00:00.000Z');
});

test('iso dates', () => {
  assert.equal(parseDate('2024-02-29', now).toISOString(), '2024-02-29T00:00:00.000Z');
  assert.throws(() => parseDate('2023-02-29', now), DateParseError);
});

test('garbage', () => {
  assert.throws(() => parseDate('next blue moon', now), DateParseError);
});
