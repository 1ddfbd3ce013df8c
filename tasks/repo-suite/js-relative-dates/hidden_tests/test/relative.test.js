const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { parseDate, DateParseError } = require('../src');

const now = new Date('2024-01-31T12:30:00Z');
const iso = (text) => parseDate(text, now).toISOString();

describe('relative', () => {
  test('ago', () => {
    assert.equal(iso('3 days ago'), '2024-01-28T12:30:00.000Z');
    assert.equal(iso('90 minutes ago'), '2024-01-31T11:00:00.000Z');
  });

  test('in', () => {
    assert.equal(iso('in 2 weeks'), '2024-02-14T12:30:00.000Z');
    assert.equal(iso('In  1   Hour'), '2024-01-31T13:30:00.000Z');
  });

  test('months clamp to the end of the month', () => {
    assert.equal(iso('in 1 month'), '2024-02-29T12:30:00.000Z');
    assert.equal(iso('2 months ago'), '2023-11-30T12:30:00.000Z');
    assert.equal(iso('in 12 months'), '2025-01-31T12:30:00.000Z');
  });

  test('nonsense is rejected', () => {
    for (const bad of ['in days', '3 fortnights ago', 'in -2 days', '2 days']) assert.throws(() => parseDate(bad, now), DateParseError);
  });
});
