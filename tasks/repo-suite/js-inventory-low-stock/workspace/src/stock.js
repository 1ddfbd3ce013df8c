const { validateItem } = require('./validate');

class Stock {
  constructor() {
    this.items = new Map();
  }

  addItem(sku, item) {
    validateItem(item);
    this.items.set(sku, { ...item });
  }

  take(sku, qty) {
    const item = this.items.get(sku);
    if (!item) throw new Error(`unknown sku ${sku}`);
    if (qty > item.qty) throw new Error(`only ${item.qty} ${sku} in stock`);
    item.qty -= qty;
  }

  restock(sku, qty) {
    const item = this.items.get(sku);
    item.qty += qty;
  }

  quantity(sku) {
    return this.items.get(sku)?.qty ?? 0;
  }

  lowStock() {
    return [...this.items]
      .filter(([, item]) => item.qty < item.reorderLevel)
      .map(([sku]) => sku)
      .sort();
  }
}

module.exports = { Stock };
