const { test } = require('node:test');
const assert = require('node:assert/strict');
const { renderInline } = require('../src');

test('emphasis and strong', () => {
  assert.equal(renderInline('a *b* **c**'), 'a <em>b</em> <strong>c</strong>');
});

test('links', () => {
  assert.equal(renderInline('see [docs](https://x.org/d)'), 'see <a href="https://x.org/d">docs</a>');
});

test('simple code span', () => {
  assert.equal(renderInline('run `ls`'), 'run <code>ls</code>');
});
