/**
 * An agent turn as the agent saw it, for the episode page: the prose of the assistant message
 * (its `<tool_call>` blocks are shown as calls, not as text), each tool call's arguments in
 * the form that tool reads them (a shell command, a path, an edit as -/+ lines, a file's new
 * content), and long outputs capped for a first look. Pure, so the rules are unit-tested.
 */

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/** The assistant message without its tool-call blocks (an unclosed block runs to the end), trimmed. */
export function assistantProse(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf(OPEN, at);
    if (open < 0) {
      out += text.slice(at);
      break;
    }
    out += text.slice(at, open);
    const close = text.indexOf(CLOSE, open + OPEN.length);
    if (close < 0) break;
    at = close + CLOSE.length;
  }
  return out.replace(/\n{3,}/g, '\n\n').trim();
}

export type ToolCallBlock = { label: string; text: string; kind: 'command' | 'code' | 'diff' };
export type ToolCallView = { summary: string; blocks: ToolCallBlock[] };

const str = (v: unknown): v is string => typeof v === 'string';
const int = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const lineCount = (s: string) => (s === '' ? 0 : s.replace(/\n$/, '').split('\n').length);
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** An exact-match edit as diff lines: every old line removed, every new line added. */
export function editAsDiff(oldStr: string, newStr: string): string {
  const side = (s: string, mark: string) =>
    s === ''
      ? []
      : s
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => `${mark}${l}`);
  return [...side(oldStr, '-'), ...side(newStr, '+')].join('\n');
}

/**
 * How to show one call's arguments. A known tool with the arguments it takes gets its own
 * form; anything else (an unknown tool, arguments of the wrong type, extra keys) is shown as
 * the JSON the agent wrote, so nothing it asked for is hidden.
 */
export function describeToolCall(name: string, args: Record<string, unknown>): ToolCallView {
  const keys = Object.keys(args);
  const only = (...allowed: string[]) => keys.every((k) => allowed.includes(k));
  if (name === 'bash' && str(args.command) && only('command', 'timeout_s') && (args.timeout_s === undefined || int(args.timeout_s))) {
    const first = args.command.split('\n')[0]!;
    return {
      summary: `$ ${first}${args.command.includes('\n') ? ' …' : ''}${args.timeout_s ? ` (timeout ${args.timeout_s} s)` : ''}`,
      blocks: args.command.includes('\n') || first.length > 120 ? [{ label: 'command', text: args.command, kind: 'command' }] : [],
    };
  }
  if (name === 'read_file' && str(args.path) && only('path', 'start_line', 'end_line')) {
    const from = int(args.start_line) ? args.start_line : null;
    const to = int(args.end_line) ? args.end_line : null;
    const range = from || to ? `, lines ${from ?? 1}–${to ?? 'end'}` : '';
    return { summary: `${args.path}${range}`, blocks: [] };
  }
  if (name === 'write_file' && str(args.path) && str(args.content) && only('path', 'content')) {
    return { summary: `${args.path} (${plural(lineCount(args.content), 'line')})`, blocks: [{ label: 'new content', text: args.content, kind: 'code' }] };
  }
  if (name === 'str_replace' && str(args.path) && str(args.old_str) && str(args.new_str) && only('path', 'old_str', 'new_str')) {
    return { summary: args.path, blocks: [{ label: 'edit', text: editAsDiff(args.old_str, args.new_str), kind: 'diff' }] };
  }
  if (name === 'submit' && keys.length === 0) return { summary: 'the workspace as it is now goes to grading', blocks: [] };
  return { summary: keys.length ? '' : 'no arguments', blocks: keys.length ? [{ label: 'arguments', text: JSON.stringify(args, null, 2), kind: 'code' }] : [] };
}

export type CappedText = { shown: string; hiddenLines: number; capped: boolean };

/**
 * The first `maxLines` lines (and at most `maxChars` characters) of a long text, with how many
 * lines were left out, for a "show more" toggle.
 */
export function capText(text: string, maxLines = 24, maxChars = 3000): CappedText {
  const lines = text.split('\n');
  let shown = lines.slice(0, maxLines).join('\n');
  if (shown.length > maxChars) shown = shown.slice(0, maxChars);
  if (shown.length === text.length) return { shown: text, hiddenLines: 0, capped: false };
  const shownLines = shown.split('\n').length;
  return { shown, hiddenLines: lines.length - shownLines, capped: true };
}
