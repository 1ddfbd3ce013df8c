import { describe, expect, it } from 'vitest';
import { cleanLogLine, LOG_LINE_MAX_CHARS, LogRing } from './log-ring';

describe('a worker log ring', () => {
  it('keeps only the newest lines, oldest first, one entry per line of a multi-line message', () => {
    const ring = new LogRing(3);
    ring.push('one');
    ring.push('two\nthree\r\nfour');
    ring.push('five');
    expect(ring.snapshot().map((l) => l.line)).toEqual(['three', 'four', 'five']);
    for (let i = 0; i < 500; i++) ring.push(`line ${i}`);
    expect(ring.snapshot()).toHaveLength(3);
    expect(ring.snapshot().at(-1)!.line).toBe('line 499');
  });

  it('removes NULs, other control characters and ANSI colours, and cuts long lines', () => {
    expect(cleanLogLine('a\u0000b\u0007c\u001b[31mred\u001b[0m\u009b\tend')).toBe('abcred end');
    expect(cleanLogLine('\u001b]0;title\u0007visible')).toBe('visible');
    const long = cleanLogLine('x'.repeat(10_000));
    expect(long).toHaveLength(LOG_LINE_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('drops lines that are empty once cleaned, and counts every push as a change', () => {
    const ring = new LogRing(5);
    const before = ring.version;
    ring.push('\u0000\u0001\n   \nkept');
    expect(ring.snapshot().map((l) => l.line)).toEqual(['kept']);
    expect(ring.version).toBe(before + 1);
    expect(() => new LogRing(0)).toThrow(/positive integer/);
  });
});
