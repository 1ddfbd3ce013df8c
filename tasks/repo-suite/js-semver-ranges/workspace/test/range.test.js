const { test } = require('node:test');
const assert = require('node:assert/strict');
const { satisfies, compare } = require('../src');

test('exact and single comparators', () => {
  assert.equal(satisfies('1.2.3', '1.2.3'), true);
  assert.equal(satisfies('1.4.0', '>=1.2.0'), true);
  assert.equal(satisfies('1.1.0', '>=1.2.0'), false);
  assert.equal(satisfies('2.0.0', '<2.0.0'), false);
});

test('prerelease ordering', () => {
  assert.equal(compare('1.0.0-alpha', '1.0.0'), -1);
  assert.equal(compare('1.0.0-alpha.2', '1.0.0-alpha.10'), -1);
});

test('invalid version', () => {
  assert.throws(() => satisfies('one', '1.0.0'), TypeError);
});
