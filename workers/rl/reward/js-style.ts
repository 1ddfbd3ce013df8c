/** Syntax verdict plus a few lint rules a reviewer would flag; Python's live in trusted.py with the same names. */
export type StyleReport = { syntaxOk: boolean; issues: string[] };

/**
 * JavaScript style from the source text alone (never executed here); `syntaxOk` comes
 * from the sandbox, where the program was loaded as Node loads it.
 */
export function jsStyle(source: string, syntaxOk: boolean): StyleReport {
  if (!syntaxOk) return { syntaxOk: false, issues: ['syntax error (the program did not load)'] };
  const lines = source.split('\n');
  const code = source.replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""').replace(/\/\/.*$/gm, '');
  const issues: string[] = [];
  if (lines.some((l) => l.length > 100)) issues.push('line longer than 100 characters');
  if (lines.some((l) => l !== l.trimEnd())) issues.push('trailing whitespace');
  if (lines.some((l) => /^\t/.test(l))) issues.push('tab indentation');
  if (/(^|[^=!<>])==($|[^=])|!=($|[^=])/m.test(code)) issues.push('loose equality (== or !=)');
  if (/\bvar\s/.test(code)) issues.push('var declaration');
  if (/\b(eval|Function)\s*\(/.test(code)) issues.push('uses eval/Function');
  return { syntaxOk: true, issues };
}
