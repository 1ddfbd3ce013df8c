const { test } = require('node:test');
const assert = require('node:assert/strict');
const { createLimiter } = require('../src');

test('first request is allowed', () => {
  const l = createLimiter({ limit: 3, windowMs: 1000, now: () => 0 });
  assert.deepEqual(l.check('a'), { allowed: true, remaining: 2, resetAt: 1000 });
});

test('options are validated', () => {
  assert.throws(() => createLimiter({ limit: 0, windowMs: 1 }), RangeError);
  assert.throws(() => createLimiter({ limit: 1, windowMs: 0 }), RangeError);
});
