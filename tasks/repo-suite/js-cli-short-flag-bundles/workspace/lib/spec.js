/** Defaults for every option and a map from alias letter to option name. */
function compileSpec(spec) {
  const defaults = {};
  const aliases = {};
  for (const [name, opt] of Object.entries(spec)) {
    defaults[name] = opt.default ?? (opt.type === 'boolean' ? false : undefined);
    if (opt.alias) aliases[opt.alias] = name;
  }
  return { defaults, aliases };
}

module.exports = { compileSpec };
