const { test } = require('node:test');
const assert = require('node:assert/strict');
const { renderTable } = require('../src');

test('pipes are escaped', () => {
  assert.equal(renderTable(['cmd'], [['a | b']]).split('\n')[2], '| a \\| b |');
});

test('newlines become <br>', () => {
  assert.equal(renderTable(['note'], [['one\ntwo']]).split('\n')[2], '| one<br>two |');
});

test('plain values unchanged', () => {
  assert.equal(renderTable(['n'], [[42]]).split('\n')[2], '| 42  |');
});
