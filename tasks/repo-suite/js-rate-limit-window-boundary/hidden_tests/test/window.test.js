const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { createLimiter } = require('../src');

function setup() {
  const clock = { t: 0 };
  const limiter = createLimiter({ limit: 3, windowMs: 1000, now: () => clock.t });
  return { clock, limiter };
}

describe('window', () => {
  test('at most limit requests per window', () => {
    const { limiter } = setup();
    const results = [1, 2, 3, 4].map(() => limiter.check('a'));
    assert.deepEqual(results.map((r) => r.allowed), [true, true, true, false]);
    assert.equal(results[3].remaining, 0);
  });

  test('a request at start + windowMs opens a new window', () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 3; i++) limiter.check('a');
    clock.t = 1000;
    const r = limiter.check('a');
    assert.deepEqual(r, { allowed: true, remaining: 2, resetAt: 2000 });
  });

  test('keys have their own windows', () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 3; i++) limiter.check('a');
    clock.t = 999;
    assert.equal(limiter.check('b').resetAt, 1999);
    clock.t = 1500;
    assert.equal(limiter.check('b').remaining, 1);
  });

  test('remaining counts down', () => {
    const { limiter } = setup();
    assert.deepEqual([1, 2, 3].map(() => limiter.check('x').remaining), [2, 1, 0]);
  });
});
