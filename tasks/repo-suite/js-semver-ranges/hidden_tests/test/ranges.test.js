const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { satisfies } = require('../src');

const check = (range, yes, no) => {
  for (const v of yes) assert.equal(satisfies(v, range), true, `${v} should satisfy ${range}`);
  for (const v of no) assert.equal(satisfies(v, range), false, `${v} should not satisfy ${range}`);
};

describe('ranges', () => {
  test('caret', () => {
    check('^1.2.3', ['1.2.3', '1.9.9'], ['1.2.2', '2.0.0']);
    check('^0.2.3', ['0.2.3', '0.2.9'], ['0.3.0']);
    check('^0.0.3', ['0.0.3'], ['0.0.4']);
  });

  test('tilde', () => {
    check('~1.2.3', ['1.2.3', '1.2.9'], ['1.3.0', '1.2.2']);
    check('~1.2', ['1.2.0', '1.2.7'], ['1.3.0']);
    check('~1', ['1.0.0', '1.9.0'], ['2.0.0']);
  });

  test('x-ranges', () => {
    check('1.x', ['1.0.0', '1.99.0'], ['2.0.0', '0.9.0']);
    check('1.2.*', ['1.2.5'], ['1.3.0']);
    check('*', ['0.0.1', '9.9.9'], []);
    check('', ['1.0.0'], []);
  });

  test('sets and alternatives', () => {
    check('>=1.2.0 <1.5.0', ['1.2.0', '1.4.9'], ['1.5.0', '1.1.0']);
    check('^1.0.0 || ^3.0.0', ['1.5.0', '3.1.0'], ['2.0.0', '4.0.0']);
  });

  test('hyphen', () => {
    check('1.2.3 - 2.3.4', ['1.2.3', '2.3.4'], ['2.3.5', '1.2.2']);
  });

  test('prereleases need an opt-in comparator', () => {
    check('^1.2.0', ['1.2.0'], ['1.3.0-beta']);
    check('>=1.3.0-alpha <2.0.0', ['1.3.0-beta', '1.4.0'], ['1.4.0-beta']);
  });

  test('invalid ranges throw', () => {
    for (const bad of ['^1.2.3.4', '>>1.0.0', '1.2.3 -', '~']) assert.throws(() => satisfies('1.0.0', bad), TypeError, bad);
  });

  test('single comparators still work', () => {
    check('<2.0.0', ['1.9.9'], ['2.0.0']);
  });
});
