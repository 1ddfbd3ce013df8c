const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { deepMerge } = require('../lib/merge');

describe('inputs', () => {
  test('are not mutated', () => {
    const defaults = { server: { port: 80, tls: { on: false } }, tags: ['a'] };
    const user = { server: { tls: { on: true } }, tags: ['b'] };
    const snapshot = JSON.stringify([defaults, user]);
    const merged = deepMerge(defaults, user);
    assert.deepEqual(merged, { server: { port: 80, tls: { on: true } }, tags: ['b'] });
    assert.equal(JSON.stringify([defaults, user]), snapshot);
    merged.server.port = 1;
    assert.equal(defaults.server.port, 80);
  });

  test('arrays concat on request', () => {
    assert.deepEqual(deepMerge({ l: [1] }, { l: [2, 3] }, { arrays: 'concat' }), { l: [1, 2, 3] });
  });
});

describe('prototype pollution', () => {
  test('__proto__ from JSON is ignored', () => {
    // in a child process: a polluted Object.prototype must not leak into the other tests
    const script = `
      const { deepMerge } = require(${JSON.stringify(path.join(__dirname, '../lib/merge'))});
      const merged = deepMerge({}, JSON.parse('{"__proto__": {"admin": true}, "a": {"constructor": {"prototype": {"x": 1}}}}'));
      process.stdout.write(JSON.stringify([({}).admin ?? null, merged.admin ?? null, ({}).x ?? null, Object.keys(merged)]));
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), [null, null, null, ['a']]);
  });
});
