import { tokenize, type CodeLanguage, type TokenKind } from './highlight';

const tokenClass: Record<TokenKind, string> = {
  keyword: 'text-fuchsia-300',
  string: 'text-amber-200',
  comment: 'text-slate-400 italic',
  number: 'text-sky-300',
  builtin: 'text-emerald-300',
  plain: '',
};

/** Syntax-highlighted code (Python or JavaScript) in the console's dark code style. */
export function CodeBlock({ code, language, testId }: { code: string; language: CodeLanguage; testId?: string }) {
  return (
    <pre className="log-block bg-slate-950" data-testid={testId} data-language={language}>
      {tokenize(code, language).map((t, i) =>
        t.kind === 'plain' ? (
          t.text
        ) : (
          <span key={i} className={tokenClass[t.kind]} data-token={t.kind}>
            {t.text}
          </span>
        ),
      )}
    </pre>
  );
}
