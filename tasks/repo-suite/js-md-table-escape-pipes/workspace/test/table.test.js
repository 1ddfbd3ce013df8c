const { test } = require('node:test');
const assert = require('node:assert/strict');
const { renderTable } = require('../src');

test('renders a padded table', () => {
  assert.equal(renderTable(['a', 'bb'], [['1', '2222']]), '| a   | bb   |\n| --- | ---- |\n| 1   | 2222 |');
});

test('null cells are empty', () => {
  assert.equal(renderTable(['x'], [[null]]).split('\n')[2], '|     |');
});
