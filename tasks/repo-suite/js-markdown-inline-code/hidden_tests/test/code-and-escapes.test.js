const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { renderInline } = require('../src');

describe('code spans', () => {
  test('content is literal', () => {
    assert.equal(renderInline('`a*b*c` and *d*'), '<code>a*b*c</code> and <em>d</em>');
  });

  test('double backticks hold a single one', () => {
    assert.equal(renderInline('``a ` b``'), '<code>a ` b</code>');
    assert.equal(renderInline('`` `x` ``'), '<code>`x`</code>');
  });

  test('content is escaped', () => {
    assert.equal(renderInline('`<b>`'), '<code>&lt;b&gt;</code>');
  });
});

describe('html', () => {
  test('text is escaped', () => {
    assert.equal(renderInline('<script>alert("x")</script> & co'), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
  });
});

describe('emphasis', () => {
  test('em inside strong', () => {
    assert.equal(renderInline('**a *b* c**'), '<strong>a <em>b</em> c</strong>');
  });

  test('backslash escapes', () => {
    assert.equal(renderInline('\\*not em\\* and \\`tick'), '*not em* and `tick');
  });

  test('unmatched markers stay', () => {
    assert.equal(renderInline('2 * 3 and `open'), '2 * 3 and `open');
  });
});
