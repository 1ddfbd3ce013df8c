import { describe, expect, it } from 'vitest';
import { replaceEqualDeep } from '@tanstack/react-query';
import superjson from 'superjson';
import { shareEqual } from './share-equal';

// What a poll of an unchanged run gives the client: the same answer, parsed again.
const answer = () => ({
  run: { id: 'r1', name: 'a run', createdAt: new Date('2026-12-07T10:00:00Z'), startedAt: null, config: { lr: 1e-5, tags: ['x'] } },
  events: [
    { id: 1, at: new Date('2026-12-07T10:01:00Z'), message: 'started' },
    { id: 2, at: new Date('2026-12-07T10:02:00Z'), message: 'iteration 1' },
  ],
});
const poll = () => superjson.deserialize<ReturnType<typeof answer>>(superjson.serialize(answer()));

describe('shareEqual', () => {
  it('keeps the previous answer when a poll returns equal data, Dates included', () => {
    const first = poll();
    const second = poll();
    expect(second).not.toBe(first);
    // the library's own sharing sees the Dates as changed, and so the whole answer
    expect(replaceEqualDeep(first, second)).not.toBe(first);
    expect(shareEqual(first, second)).toBe(first);
  });

  it('shares the unchanged parts and takes the changed ones', () => {
    const first = poll();
    const next = poll();
    next.events.push({ id: 3, at: new Date('2026-12-07T10:03:00Z'), message: 'iteration 2' });
    next.run.createdAt = new Date('2026-12-07T11:00:00Z');
    const shared = shareEqual(first, next);
    expect(shared).not.toBe(first);
    expect(shared.run).not.toBe(first.run);
    expect(shared.run.createdAt.toISOString()).toBe('2026-12-07T11:00:00.000Z');
    expect(shared.run.config).toBe(first.run.config);
    expect(shared.events[0]).toBe(first.events[0]);
    expect(shared.events[1]).toBe(first.events[1]);
    expect(shared.events[2]).toBe(next.events[2]);
    expect(shared.events).toHaveLength(3);
  });

  it('sees a removed key, a shorter array and a changed scalar', () => {
    expect(shareEqual({ a: 1, b: 2 }, { a: 1 })).toEqual({ a: 1 });
    expect(shareEqual([1, 2, 3], [1, 2])).toEqual([1, 2]);
    const prev = { a: 1 };
    expect(shareEqual(prev, { a: 2 })).toEqual({ a: 2 });
    expect(shareEqual(null, { a: 1 })).toEqual({ a: 1 });
  });
});
