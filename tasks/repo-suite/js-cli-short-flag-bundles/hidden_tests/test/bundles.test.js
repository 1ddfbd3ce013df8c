const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { parseArgs } = require('../lib/parse');

const spec = {
  verbose: { type: 'boolean', alias: 'v' },
  quiet: { type: 'boolean', alias: 'q' },
  color: { type: 'boolean', default: true },
  output: { type: 'string', alias: 'o' },
};

describe('short flag bundles', () => {
  test('-vq sets both', () => {
    const { options } = parseArgs(['-vq'], spec);
    assert.equal(options.verbose, true);
    assert.equal(options.quiet, true);
  });

  test('string option last in a bundle takes the next argument', () => {
    const { options, positionals } = parseArgs(['-vo', 'out.txt', 'in'], spec);
    assert.deepEqual([options.verbose, options.output, positionals], [true, 'out.txt', ['in']]);
  });

  test('string option inside a bundle is an error', () => {
    assert.throws(() => parseArgs(['-ov', 'x'], spec), { name: 'UsageError', message: /-o/ });
  });

  test('unknown letter in a bundle', () => {
    assert.throws(() => parseArgs(['-vz'], spec), { name: 'UsageError', message: /-z/ });
  });
});

describe('negation', () => {
  test('--no-color turns a default-true flag off', () => {
    assert.equal(parseArgs(['--no-color'], spec).options.color, false);
  });

  test('--no- on a string option is an error', () => {
    assert.throws(() => parseArgs(['--no-output'], spec), { name: 'UsageError' });
  });

  test('single short flags still work', () => {
    assert.equal(parseArgs(['-q'], spec).options.quiet, true);
  });
});
