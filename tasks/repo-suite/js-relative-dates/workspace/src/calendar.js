const DAY_MS = 86_400_000;

function addDays(date, n) {
  return new Date(date.getTime() + n * DAY_MS);
}

function daysInMonth(year, month) {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

module.exports = { DAY_MS, addDays, daysInMonth };
