const HTML = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => HTML[c]);
}

module.exports = { escapeHtml };
