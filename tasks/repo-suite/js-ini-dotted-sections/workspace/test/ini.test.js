const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseIni } = require('../src/ini');

test('top-level keys and sections', () => {
  assert.deepEqual(parseIni('name = app\n; c\n[server]\nport = 80\n'), { name: 'app', server: { port: '80' } });
});

test('bad line reports its number', () => {
  assert.throws(() => parseIni('a = 1\noops'), /line 2/);
});

test('values stay strings by default', () => {
  assert.deepEqual(parseIni('[x]\nn = 1\nb = true'), { x: { n: '1', b: 'true' } });
});
