function isCount(n) {
  return Number.isInteger(n) && n >= 0;
}

function validateItem(item) {
  if (!item || !isCount(item.qty) || !isCount(item.reorderLevel)) throw new TypeError('an item needs integer qty and reorderLevel >= 0');
}

module.exports = { isCount, validateItem };
