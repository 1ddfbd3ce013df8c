const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Stock } = require('../src/stock');

function make() {
  const s = new Stock();
  s.addItem('bolt', { qty: 100, reorderLevel: 20 });
  s.addItem('nut', { qty: 5, reorderLevel: 10 });
  return s;
}

test('take reduces quantity', () => {
  const s = make();
  s.take('bolt', 30);
  assert.equal(s.quantity('bolt'), 70);
});

test('cannot take more than in stock', () => {
  assert.throws(() => make().take('nut', 6));
});

test('below reorder level is low', () => {
  assert.deepEqual(make().lowStock(), ['nut']);
});

test('restock adds', () => {
  const s = make();
  s.restock('nut', 10);
  assert.equal(s.quantity('nut'), 15);
});
