const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Stock } = require('../src/stock');

function make() {
  const s = new Stock();
  s.addItem('bolt', { qty: 20, reorderLevel: 20 });
  s.addItem('nut', { qty: 50, reorderLevel: 10 });
  return s;
}

test('at reorder level is low', () => {
  assert.deepEqual(make().lowStock(), ['bolt']);
});

test('restock rejects bad quantities', () => {
  const s = make();
  for (const bad of [0, -3, 1.5, '5', null]) assert.throws(() => s.restock('nut', bad), TypeError);
  assert.equal(s.quantity('nut'), 50);
});

test('restock rejects unknown sku', () => {
  assert.throws(() => make().restock('washer', 1), /unknown sku washer/);
});
