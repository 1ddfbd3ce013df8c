import { describe, expect, it } from 'vitest';
import { languageOf, tokenize } from './highlight';

const kinds = (code: string, lang: 'python' | 'javascript') =>
  tokenize(code, lang)
    .filter((t) => t.kind !== 'plain')
    .map((t) => `${t.kind}:${t.text}`);

describe('tokenize', () => {
  it('finds Python keywords, strings, numbers and comments, and keeps every character', () => {
    const code = 'def add(a, b):\n    return a + 2  # sum "not a string"\ns = """x\ny"""';
    expect(kinds(code, 'python')).toEqual(['keyword:def', 'keyword:return', 'number:2', 'comment:# sum "not a string"', 'string:"""x\ny"""']);
    expect(
      tokenize(code, 'python')
        .map((t) => t.text)
        .join(''),
    ).toBe(code);
  });
  it('handles JavaScript comments, escapes and template strings', () => {
    const code = "const s = 'it\\'s'; // note\n/* block */ let t = `a${1}`; x1 = 3";
    expect(kinds(code, 'javascript')).toEqual([
      'keyword:const',
      "string:'it\\'s'",
      'comment:// note',
      'comment:/* block */',
      'keyword:let',
      'string:`a${1}`',
      'number:3',
    ]);
  });
  it('picks the language from a task language name', () => {
    expect(languageOf('javascript')).toBe('javascript');
    expect(languageOf('python')).toBe('python');
    expect(languageOf(null)).toBe('python');
    // a text task's output is prose, shown as written
    expect(languageOf('python', 'text')).toBe('text');
    expect(tokenize('def x: "y" # z', 'text')).toEqual([{ kind: 'plain', text: 'def x: "y" # z' }]);
  });
});
