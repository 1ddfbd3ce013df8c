/** Split an identifier or label into words. */
function words(s) {
  return s
    .replace(/([A-Z])/g, ' $1')
    .split(/[\s_-]+/)
    .filter(Boolean);
}

module.exports = { words };
