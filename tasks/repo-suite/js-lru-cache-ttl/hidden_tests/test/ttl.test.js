const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { LruCache } = require('../src/lru');

function clock() {
  const c = { t: 1000, now: () => c.t };
  return c;
}

describe('ttl', () => {
  test('expired entries are absent', () => {
    const k = clock();
    const c = new LruCache({ max: 5, ttlMs: 100, now: k.now });
    c.set('a', 1);
    k.t += 100;
    assert.equal(c.get('a'), 1);
    k.t += 1;
    assert.equal(c.has('a'), false);
    assert.equal(c.get('a'), undefined);
    assert.equal(c.size, 0);
    assert.equal(c.stats.misses, 1);
  });

  test('update refreshes age', () => {
    const k = clock();
    const c = new LruCache({ max: 5, ttlMs: 100, now: k.now });
    c.set('a', 1);
    k.t += 80;
    c.set('a', 2);
    k.t += 80;
    assert.equal(c.get('a'), 2);
  });
});

describe('update', () => {
  test('set on an existing key evicts nothing', () => {
    const c = new LruCache({ max: 2 });
    c.set('a', 1).set('b', 2).set('a', 3);
    assert.equal(c.size, 2);
    assert.equal(c.get('b'), 2);
    assert.equal(c.get('a'), 3);
    assert.equal(c.stats.evictions, 0);
  });

  test('no ttl means no expiry', () => {
    const k = clock();
    const c = new LruCache({ max: 1, now: k.now });
    c.set('a', 1);
    k.t += 1e12;
    assert.equal(c.get('a'), 1);
  });
});
