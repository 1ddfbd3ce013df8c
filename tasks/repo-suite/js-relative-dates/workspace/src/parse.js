const { addDays } = require('./calendar');

class DateParseError extends Error {}

const WORDS = { today: 0, tomorrow: 1, yesterday: -1 };

function parseDate(text, now = new Date()) {
  const t = text.trim().toLowerCase();
  if (t in WORDS) return addDays(now, WORDS[t]);
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) {
    const d = new Date(`${t}T00:00:00Z`);
    if (!Number.isNaN(d.getTime()) && d.toISOString().startsWith(t)) return d;
  }
  throw new DateParseError(`cannot understand the date ${JSON.stringify(text)}`);
}

module.exports = { parseDate, DateParseError };
