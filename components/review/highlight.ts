import type { TaskLanguage } from '@/core/tasks';

/**
 * A small tokenizer for highlighting Python and JavaScript in review items. It only has
 * to be right enough to read code at a glance: strings, comments, numbers, keywords.
 */
export type TokenKind = 'keyword' | 'string' | 'comment' | 'number' | 'builtin' | 'plain';
export type Token = { kind: TokenKind; text: string };
/** `text`: a text task's output, shown as written (no code highlighting). */
export type CodeLanguage = TaskLanguage | 'text';

const KEYWORDS: Record<TaskLanguage, Set<string>> = {
  python: new Set(
    'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case'.split(
      ' ',
    ),
  ),
  javascript: new Set(
    'async await break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield'.split(
      ' ',
    ),
  ),
};

const BUILTINS: Record<TaskLanguage, Set<string>> = {
  python: new Set('print len range int str float list dict set tuple bool isinstance sum min max abs sorted enumerate zip map filter open self'.split(' ')),
  javascript: new Set('console Math JSON Object Array String Number Boolean Promise Map Set require module exports'.split(' ')),
};

/** Anything that names the language: a task's language field, a file extension. */
export function languageOf(name: string | null | undefined, kind?: string | null): CodeLanguage {
  if (kind === 'text') return 'text';
  const n = (name ?? '').toLowerCase();
  return n.startsWith('js') || n.startsWith('javascript') || n.startsWith('ts') || n.startsWith('node') ? 'javascript' : 'python';
}

export function tokenize(code: string, lang: CodeLanguage): Token[] {
  if (lang === 'text') return code ? [{ kind: 'plain', text: code }] : [];
  const out: Token[] = [];
  const push = (kind: TokenKind, text: string) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  };
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    const rest = code.slice(i);
    // Comments
    if ((lang === 'python' && c === '#') || (lang === 'javascript' && rest.startsWith('//'))) {
      const end = code.indexOf('\n', i);
      const stop = end === -1 ? code.length : end;
      push('comment', code.slice(i, stop));
      i = stop;
      continue;
    }
    if (lang === 'javascript' && rest.startsWith('/*')) {
      const end = code.indexOf('*/', i + 2);
      const stop = end === -1 ? code.length : end + 2;
      push('comment', code.slice(i, stop));
      i = stop;
      continue;
    }
    // Strings: Python triple quotes, then single-line quotes (and JS template literals).
    if (lang === 'python' && (rest.startsWith('"""') || rest.startsWith("'''"))) {
      const q = rest.slice(0, 3);
      const end = code.indexOf(q, i + 3);
      const stop = end === -1 ? code.length : end + 3;
      push('string', code.slice(i, stop));
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || (lang === 'javascript' && c === '`')) {
      let j = i + 1;
      while (j < code.length && code[j] !== c) {
        if (code[j] === '\\') j++;
        else if (code[j] === '\n' && c !== '`') break;
        j++;
      }
      const stop = Math.min(j + 1, code.length);
      push('string', code.slice(i, stop));
      i = stop;
      continue;
    }
    const num = /^(?:0[xob][0-9a-f_]+|\d[\d_]*(?:\.\d*)?(?:e[+-]?\d+)?)/i.exec(rest);
    if (num && !/[\w$]/.test(code[i - 1] ?? '')) {
      push('number', num[0]);
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (word) {
      const w = word[0];
      push(KEYWORDS[lang].has(w) ? 'keyword' : BUILTINS[lang].has(w) ? 'builtin' : 'plain', w);
      i += w.length;
      continue;
    }
    push('plain', c);
    i++;
  }
  return out;
}
