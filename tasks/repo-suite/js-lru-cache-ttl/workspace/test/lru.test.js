const { test } = require('node:test');
const assert = require('node:assert/strict');
const { LruCache } = require('../src/lru');

test('get returns what was set', () => {
  const c = new LruCache({ max: 2 });
  c.set('a', 1);
  assert.equal(c.get('a'), 1);
  assert.equal(c.get('b'), undefined);
  assert.deepEqual([c.stats.hits, c.stats.misses], [1, 1]);
});

test('evicts the least recently used', () => {
  const c = new LruCache({ max: 2 });
  c.set('a', 1).set('b', 2);
  c.get('a');
  c.set('c', 3);
  assert.equal(c.has('b'), false);
  assert.equal(c.has('a'), true);
});

test('max is validated', () => {
  assert.throws(() => new LruCache({ max: 0 }), RangeError);
});
