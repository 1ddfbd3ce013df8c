const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { compareVersions, latest } = require('../src');

describe('numeric parts', () => {
  test('1.10.0 is newer than 1.9.0', () => {
    assert.equal(compareVersions('1.10.0', '1.9.0'), 1);
    assert.equal(compareVersions('1.9.0', '1.10.0'), -1);
  });

  test('latest picks the numerically largest', () => {
    assert.equal(latest(['1.9.0', '1.10.0', '1.2.0']), '1.10.0');
  });

  test('missing parts are zero', () => {
    assert.equal(compareVersions('1.2', '1.2.0'), 0);
  });
});
