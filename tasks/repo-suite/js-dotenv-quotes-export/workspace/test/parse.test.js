const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseEnv } = require('../lib');

test('plain values and comments', () => {
  assert.deepEqual(parseEnv('# comment\nA=1\nB = two words # note\n'), { A: '1', B: 'two words' });
});

test('bad lines report the line number', () => {
  assert.throws(() => parseEnv('A=1\nnope'), /line 2/);
});

test('bad key', () => {
  assert.throws(() => parseEnv('1A=x'), SyntaxError);
});
