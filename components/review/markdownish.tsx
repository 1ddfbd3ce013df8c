import type { ReactNode } from 'react';

/** **bold** and `code` inside a line. */
function inline(text: string): ReactNode[] {
  return text
    .split(/(\*\*[^*]+\*\*|`[^`]+`)/g)
    .filter(Boolean)
    .map((part, i) => {
      if (part.startsWith('**') && part.endsWith('**')) return <strong key={i}>{part.slice(2, -2)}</strong>;
      if (part.startsWith('`') && part.endsWith('`'))
        return (
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-xs">
            {part.slice(1, -1)}
          </code>
        );
      return part;
    });
}

/**
 * Just enough Markdown for guidelines: headings, numbered and bulleted lists (one level of
 * nesting by indentation), paragraphs, bold and code. Text is never rendered as HTML.
 */
export function Markdownish({ text }: { text: string }) {
  const blocks: ReactNode[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length)
      blocks.push(
        <p key={blocks.length} className="my-1.5">
          {inline(para.join(' '))}
        </p>,
      );
    para = [];
  };
  for (const line of text.split('\n')) {
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const item = /^(\s*)(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (!line.trim()) flush();
    else if (heading) {
      flush();
      blocks.push(
        <h3 key={blocks.length} className="mt-2 mb-1 font-semibold text-slate-800">
          {inline(heading[2]!)}
        </h3>,
      );
    } else if (item) {
      flush();
      const nested = item[1]!.length >= 2;
      const numbered = /^\s*\d+\./.test(line);
      blocks.push(
        <div key={blocks.length} className={`my-0.5 flex gap-1.5 ${nested ? 'ml-6' : 'ml-1'}`}>
          <span className="text-slate-400">{numbered ? `${/\d+/.exec(line)![0]}.` : '•'}</span>
          <span>{inline(item[2]!)}</span>
        </div>,
      );
    } else para.push(line.trim());
  }
  flush();
  return <div className="text-sm leading-relaxed text-slate-700">{blocks}</div>;
}
