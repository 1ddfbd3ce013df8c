const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { parseIni } = require('../src/ini');

describe('dotted sections', () => {
  test('nest', () => {
    assert.deepEqual(parseIni('[db.primary]\nhost = a'), { db: { primary: { host: 'a' } } });
  });

  test('merge with the parent section', () => {
    assert.deepEqual(parseIni('[db]\nport = 5432\n[db.primary]\nhost = a\n[db.replica]\nhost = b'), {
      db: { port: '5432', primary: { host: 'a' }, replica: { host: 'b' } },
    });
  });

  test('collision with a value is an error', () => {
    assert.throws(() => parseIni('[db]\nport = 5432\n\n[db.port]\nx = 1'), /line 4/);
  });
});

describe('types option', () => {
  test('booleans and integers', () => {
    assert.deepEqual(parseIni('[x]\nn = 42\nneg = -7\nb = true\nf = false\ns = 4.5\nz = 007x', { types: true }), {
      x: { n: 42, neg: -7, b: true, f: false, s: '4.5', z: '007x' },
    });
  });
});
