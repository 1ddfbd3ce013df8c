const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery, stringifyQuery } = require('../lib/qs');

test('parses pairs and decodes', () => {
  assert.deepEqual(parseQuery('?q=hello%20world&page=2'), { q: 'hello world', page: '2' });
});

test('plus is a space, bare keys are empty', () => {
  assert.deepEqual(parseQuery('a=b+c&flag'), { a: 'b c', flag: '' });
});

test('stringify', () => {
  assert.equal(stringifyQuery({ q: 'a b', n: 1 }), 'q=a+b&n=1');
});
