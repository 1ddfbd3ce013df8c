const { test } = require('node:test');
const assert = require('node:assert/strict');
const { compareVersions, sortVersions } = require('../src');

test('equal versions', () => {
  assert.equal(compareVersions('1.2.3', '1.2.3'), 0);
});

test('single digit parts', () => {
  assert.equal(compareVersions('1.2.3', '1.3.0'), -1);
  assert.equal(compareVersions('2.0.0', '1.9.9'), 1);
});

test('sort does not mutate its input', () => {
  const input = ['1.2.0', '1.1.0'];
  assert.deepEqual(sortVersions(input), ['1.1.0', '1.2.0']);
  assert.deepEqual(input, ['1.2.0', '1.1.0']);
});
