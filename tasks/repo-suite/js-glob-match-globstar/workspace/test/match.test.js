const { test } = require('node:test');
const assert = require('node:assert/strict');
const { matchGlob, filterPaths } = require('../src');

test('star in a file name', () => {
  assert.equal(matchGlob('src/*.js', 'src/index.js'), true);
  assert.equal(matchGlob('src/*.js', 'src/index.ts'), false);
});

test('question mark', () => {
  assert.equal(matchGlob('a?c', 'abc'), true);
  assert.equal(matchGlob('a?c', 'ac'), false);
});

test('filter with excludes', () => {
  assert.deepEqual(filterPaths(['a.js', 'b.js', 'c.ts'], ['*.js'], ['b*']), ['a.js']);
});
