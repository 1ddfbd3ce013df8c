const { UsageError } = require('./errors');
const { compileSpec } = require('./spec');

function parseArgs(argv, spec) {
  const { defaults, aliases } = compileSpec(spec);
  const options = { ...defaults };
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    let name = null;
    if (arg.startsWith('--')) name = arg.slice(2);
    else if (arg.startsWith('-') && arg.length === 2) name = aliases[arg[1]];
    else {
      positionals.push(arg);
      continue;
    }
    const opt = spec[name];
    if (!opt) throw new UsageError(`unknown option ${arg}`);
    if (opt.type === 'boolean') options[name] = true;
    else {
      if (i + 1 >= argv.length) throw new UsageError(`option ${arg} needs a value`);
      options[name] = argv[++i];
    }
  }
  return { options, positionals };
}

module.exports = { parseArgs };
