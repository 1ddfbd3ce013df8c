const fs = require('node:fs');
const { parseEnv } = require('./parse');

function loadEnvFile(path) {
  return parseEnv(fs.readFileSync(path, 'utf8'));
}

module.exports = { loadEnvFile };
