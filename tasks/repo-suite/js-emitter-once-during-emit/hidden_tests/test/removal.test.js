const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Emitter } = require('../src');

test('once does not make the next listener miss the event', () => {
  const e = new Emitter();
  const calls = [];
  e.once('data', () => calls.push('first'));
  e.on('data', () => calls.push('second'));
  e.emit('data');
  assert.deepEqual(calls, ['first', 'second']);
});

test('off during emit affects only later emits', () => {
  const e = new Emitter();
  const calls = [];
  const b = () => calls.push('b');
  e.on('x', () => {
    calls.push('a');
    e.off('x', b);
  });
  e.on('x', b);
  e.emit('x');
  e.emit('x');
  assert.deepEqual(calls, ['a', 'b', 'a']);
});

test('off removes a once listener', () => {
  const e = new Emitter();
  let n = 0;
  const fn = () => n++;
  e.once('x', fn);
  e.off('x', fn);
  e.emit('x');
  assert.equal(n, 0);
  assert.equal(e.listenerCount('x'), 0);
});

test('listeners added during emit wait for the next emit', () => {
  const e = new Emitter();
  const calls = [];
  e.on('x', () => {
    calls.push('a');
    e.on('x', () => calls.push('late'));
  });
  e.emit('x');
  assert.deepEqual(calls, ['a']);
});
