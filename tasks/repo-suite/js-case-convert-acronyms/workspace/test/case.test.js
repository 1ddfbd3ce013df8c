const { test } = require('node:test');
const assert = require('node:assert/strict');
const { camelCase, kebabCase, snakeCase } = require('../src');

test('camelCase from words', () => {
  assert.equal(camelCase('hello big world'), 'helloBigWorld');
});

test('kebabCase from camel', () => {
  assert.equal(kebabCase('helloBigWorld'), 'hello-big-world');
});

test('snakeCase from kebab', () => {
  assert.equal(snakeCase('hello-big-world'), 'hello_big_world');
});
