const { test } = require('node:test');
const assert = require('node:assert/strict');
const { parseArgs } = require('../lib/parse');

const spec = {
  verbose: { type: 'boolean', alias: 'v' },
  quiet: { type: 'boolean', alias: 'q' },
  color: { type: 'boolean', default: true },
  output: { type: 'string', alias: 'o' },
};

test('long and short options', () => {
  assert.deepEqual(parseArgs(['-v', '--output', 'x.txt', 'in.csv'], spec), {
    options: { verbose: true, quiet: false, color: true, output: 'x.txt' },
    positionals: ['in.csv'],
  });
});

test('unknown option', () => {
  assert.throws(() => parseArgs(['--nope'], spec), { name: 'UsageError' });
});

test('missing value', () => {
  assert.throws(() => parseArgs(['-o'], spec), /needs a value/);
});
