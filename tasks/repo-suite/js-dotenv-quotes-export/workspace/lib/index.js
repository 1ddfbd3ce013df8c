const { parseEnv } = require('./parse');
const { loadEnvFile } = require('./load');

module.exports = { parseEnv, loadEnvFile };
