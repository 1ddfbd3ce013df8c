const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const { mapLimit, deferred } = require('../src');

const tick = () => new Promise((r) => setImmediate(r));

describe('mapLimit', () => {
  test('never more than limit in flight, refills as calls finish', async () => {
    const gates = Array.from({ length: 5 }, deferred);
    let running = 0;
    let peak = 0;
    const started = [];
    const done = mapLimit([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await gates[i].promise;
      running--;
      return i;
    });
    await tick();
    assert.deepEqual(started, [0, 1]);
    gates[1].resolve();
    await tick();
    assert.deepEqual(started, [0, 1, 2]);
    gates.forEach((g) => g.resolve());
    await done;
    assert.equal(peak, 2);
  });

  test('results keep input order', async () => {
    const delays = [30, 5, 15, 1];
    const out = await mapLimit(delays, 2, (ms, i) => new Promise((r) => setTimeout(() => r(`${i}:${ms}`), ms)));
    assert.deepEqual(out, ['0:30', '1:5', '2:15', '3:1']);
  });

  test('stops starting calls after a rejection', async () => {
    const started = [];
    const err = await mapLimit([0, 1, 2, 3], 1, async (i) => {
      started.push(i);
      if (i === 1) throw new Error('boom');
      return i;
    }).catch((e) => e);
    assert.equal(err.message, 'boom');
    await tick();
    assert.deepEqual(started, [0, 1]);
  });

  test('limit is validated', async () => {
    await assert.rejects(mapLimit([1], 0, async () => 1), RangeError);
    await assert.rejects(mapLimit([1], 1.5, async () => 1), RangeError);
  });

  test('sync results are fine', async () => {
    const out = await mapLimit(['a', 'b'], 5, (x) => x + x);
    assert.deepEqual([...out].sort(), ['aa', 'bb']);
  });
});
