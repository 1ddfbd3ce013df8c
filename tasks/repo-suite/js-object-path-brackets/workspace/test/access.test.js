const { test } = require('node:test');
const assert = require('node:assert/strict');
const { get, set } = require('../src');

test('get dotted keys', () => {
  assert.equal(get({ a: { b: 2 } }, 'a.b'), 2);
  assert.equal(get({ a: {} }, 'a.b.c', 'dflt'), 'dflt');
});

test('set creates objects', () => {
  assert.deepEqual(set({}, 'a.b', 1), { a: { b: 1 } });
});

test('empty path rejected', () => {
  assert.throws(() => get({}, ''));
});
