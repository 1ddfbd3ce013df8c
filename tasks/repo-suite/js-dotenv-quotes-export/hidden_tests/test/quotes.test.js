const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseEnv } = require('../lib');

test('export prefix', () => {
  assert.deepEqual(parseEnv('export API_URL=https://api.example.org'), { API_URL: 'https://api.example.org' });
});

test('double quotes stripped, escapes expanded, # kept', () => {
  assert.deepEqual(parseEnv('A="hello world"\nB="line1\\nline2"\nC="a #b"'), { A: 'hello world', B: 'line1\nline2', C: 'a #b' });
});

test('single quotes are literal', () => {
  assert.deepEqual(parseEnv("G='hi \\n there'"), { G: 'hi \\n there' });
});

test('unquoted unchanged', () => {
  assert.deepEqual(parseEnv('X= a b '), { X: 'a b' });
});
