const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery, stringifyQuery } = require('../lib/qs');

test('repeated keys become arrays', () => {
  assert.deepEqual(parseQuery('tag=a&tag=b&q=x'), { tag: ['a', 'b'], q: 'x' });
});

test('three values keep their order', () => {
  assert.deepEqual(parseQuery('t=3&t=1&t=2').t, ['3', '1', '2']);
});

test('arrays stringify as repeated keys', () => {
  assert.equal(stringifyQuery({ tag: ['a', 'b c'] }), 'tag=a&tag=b+c');
});

test('single keys stay strings', () => {
  assert.deepEqual(parseQuery('a=1'), { a: '1' });
});
