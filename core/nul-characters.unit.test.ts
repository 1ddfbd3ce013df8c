import { describe, expect, it } from 'vitest';
import { nulCharacterAt, nulCharacterProblem } from './nul-characters';

describe('nulCharacterAt', () => {
  it('names the first field holding U+0000: nested, in arrays, in key names, by line in multi-line text', () => {
    expect(nulCharacterAt({ a: 'ok', b: [{ c: 'x\u0000' }] })).toBe('.b[0].c');
    expect(nulCharacterAt({ 'bad\u0000key': 1 })).toBe('."bad\\u0000key" (its name)');
    expect(nulCharacterAt({ text: 'one\ntwo\nth\u0000ree' })).toBe('.text (line 3)');
    expect(nulCharacterAt({ a: 'fine', n: 3, z: null, t: true })).toBeNull();
    expect(nulCharacterProblem('\u0000')).toMatch(/^the input contains a NUL character/);
  });

  it('finds one at any depth (a task input nested 10,000 levels)', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(nulCharacterAt({ input: deep })).toMatch(/^\.input(\[0\]){10000}$/);
  });
});
