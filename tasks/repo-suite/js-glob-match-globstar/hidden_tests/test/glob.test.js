const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { matchGlob } = require('../src');

const yes = (g, p) => assert.equal(matchGlob(g, p), true, `${g} should match ${p}`);
const no = (g, p) => assert.equal(matchGlob(g, p), false, `${g} should not match ${p}`);

describe('segments', () => {
  test('star stays inside a segment', () => {
    no('src/*.js', 'src/lib/a.js');
    no('*', 'a/b');
    yes('*', 'abc');
  });

  test('globstar', () => {
    yes('src/**/*.js', 'src/a.js');
    yes('src/**/*.js', 'src/x/y/a.js');
    no('src/**/*.js', 'lib/a.js');
    yes('**', 'a/b/c');
    yes('**/test.js', 'test.js');
    yes('a/**', 'a/b/c');
  });

  test('question mark is not a slash', () => {
    no('a?b', 'a/b');
  });
});

describe('classes', () => {
  test('sets, ranges and negation', () => {
    yes('file[123].txt', 'file2.txt');
    no('file[123].txt', 'file4.txt');
    yes('[a-c]x', 'bx');
    no('[a-c]x', 'dx');
    yes('[!a-c]x', 'dx');
    no('[!a-c]x', 'ax');
    no('a[!x]b', 'a/b');
  });
});

describe('literals', () => {
  test('regex metacharacters are literal', () => {
    yes('a+b.js', 'a+b.js');
    no('a.js', 'abjs');
    yes('(x)$', '(x)$');
  });

  test('escaped star', () => {
    yes('a\\*', 'a*');
    no('a\\*', 'ab');
  });
});
