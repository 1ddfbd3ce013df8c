const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Emitter } = require('../src');

test('on and emit with arguments', () => {
  const e = new Emitter();
  const seen = [];
  e.on('x', (a, b) => seen.push(a + b));
  assert.equal(e.emit('x', 1, 2), true);
  assert.deepEqual(seen, [3]);
});

test('emit without listeners', () => {
  assert.equal(new Emitter().emit('nothing'), false);
});

test('once fires once', () => {
  const e = new Emitter();
  let n = 0;
  e.once('x', () => n++);
  e.emit('x');
  e.emit('x');
  assert.equal(n, 1);
  assert.equal(e.listenerCount('x'), 0);
});
