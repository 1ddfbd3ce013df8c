const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function parseValue(raw) {
  const hash = raw.indexOf(' #');
  return (hash === -1 ? raw : raw.slice(0, hash)).trim();
}

function parseEnv(text) {
  const out = {};
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const eq = trimmed.indexOf('=');
    if (eq === -1) throw new SyntaxError(`line ${i + 1}: expected KEY=value`);
    const key = trimmed.slice(0, eq).trim();
    if (!KEY.test(key)) throw new SyntaxError(`line ${i + 1}: bad key ${JSON.stringify(key)}`);
    out[key] = parseValue(trimmed.slice(eq + 1));
  });
  return out;
}

module.exports = { parseEnv };
