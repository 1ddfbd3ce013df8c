const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { camelCase, kebabCase, snakeCase } = require('../src');
const { words } = require('../src/words');

describe('acronyms', () => {
  test('kebab keeps acronyms together', () => {
    assert.equal(kebabCase('parseHTTPResponse'), 'parse-http-response');
  });
  test('trailing acronym', () => {
    assert.equal(snakeCase('userID'), 'user_id');
  });
  test('camel from acronym words', () => {
    assert.equal(camelCase('XML http request'), 'xmlHttpRequest');
  });
});

describe('digits', () => {
  test('digits stay with the word before', () => {
    assert.deepEqual(words('version2Update'), ['version2', 'Update']);
  });
  test('plain words', () => {
    assert.deepEqual(words('a_b-c d'), ['a', 'b', 'c', 'd']);
  });
});
