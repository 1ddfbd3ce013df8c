/**
 * Text the CLI prints for people, made safe for a terminal. Names, display names, audit
 * details, error messages that echo input and sandbox output are written by users (or by
 * sandboxed code); printed raw, an ESC sequence could retitle the window, clear the screen,
 * rewrite earlier lines or hide a link (OSC 8), and a bidi override could make text read
 * differently from what it is. Every such character becomes a visible escape instead:
 * ESC → `\x1b`, BEL → `\x07`, U+202E → `\u202e`. `\n` and `\t` stay, and so does `\r`
 * right before `\n` (CRLF line ends); a lone `\r`, which returns to the line start and
 * overwrites what was printed, is escaped. JSON output (--json) is exact and not passed
 * through here: JSON.stringify escapes C0 controls itself.
 */

// C0 except \t and \n (and \r before \n), DEL, C1 (U+0080–U+009F), bidi embeddings/overrides/isolates.
const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

const visible = (c: string): string => {
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
};

/** `text` with terminal control characters replaced by visible escapes (idempotent). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}
