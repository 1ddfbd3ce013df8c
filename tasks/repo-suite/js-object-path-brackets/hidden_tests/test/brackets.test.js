const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { get, set, parsePath, PathError } = require('../src');

describe('parsePath', () => {
  test('indexes and quoted keys', () => {
    assert.deepEqual(parsePath('items[0].name'), ['items', 0, 'name']);
    assert.deepEqual(parsePath('m[1][2]'), ['m', 1, 2]);
    assert.deepEqual(parsePath(`headers["content.type"]['a b']`), ['headers', 'content.type', 'a b']);
    assert.deepEqual(parsePath('q["say \\"hi\\""]'), ['q', 'say "hi"']);
  });

  test('malformed paths', () => {
    for (const bad of ['a[', 'a[x]', 'a..b', 'a["open', 'a.', '[1']) assert.throws(() => parsePath(bad), PathError, bad);
  });
});

describe('get and set', () => {
  test('get through arrays', () => {
    assert.equal(get({ items: [{ name: 'n0' }] }, 'items[0].name'), 'n0');
    assert.equal(get({ items: [] }, 'items[3].name', 'none'), 'none');
  });

  test('set creates arrays for indexes', () => {
    const out = set({}, 'a.b[2]', 1);
    assert.ok(Array.isArray(out.a.b));
    assert.equal(out.a.b[2], 1);
    assert.deepEqual(set({}, 'list[0].x', 'y'), { list: [{ x: 'y' }] });
  });

  test('set refuses prototype keys', () => {
    // in a child process: a polluted Object.prototype must not leak into the other tests
    const script = `
      const { set, PathError } = require(${JSON.stringify(path.join(__dirname, '../src'))});
      const refused = (p) => { try { set({}, p, 1); return false; } catch (e) { return e instanceof PathError; } };
      process.stdout.write(JSON.stringify([refused('__proto__.admin'), refused('a["constructor"].prototype.x'), ({}).admin ?? null, ({}).x ?? null]));
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), [true, true, null, null]);
  });

  test('plain dotted paths still work', () => {
    assert.deepEqual(set({ a: { keep: 1 } }, 'a.b', 2), { a: { keep: 1, b: 2 } });
  });
});
