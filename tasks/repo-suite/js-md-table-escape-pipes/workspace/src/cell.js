/** The text of one cell. */
function cellText(value) {
  if (value === null || value === undefined) return '';
  return String(value);
}

module.exports = { cellText };
