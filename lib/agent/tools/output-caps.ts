/**
 * Caps on what a tool shows the agent. Output beyond the cap is cut from the middle (the
 * start and the end of a log are the useful parts) and the cut is said in the text, so the
 * agent knows it did not see everything.
 */
export function capText(text: string, maxBytes: number): { text: string; omittedBytes: number } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { text, omittedBytes: 0 };
  const head = Math.floor(maxBytes * 0.6);
  const tail = maxBytes - head;
  const omitted = buf.length - head - tail;
  // toString on a cut UTF-8 sequence yields U+FFFD at the edges, never invalid text
  const marker = `\n[output truncated: ${omitted} bytes omitted]\n`;
  return { text: buf.subarray(0, head).toString('utf8') + marker + buf.subarray(buf.length - tail).toString('utf8'), omittedBytes: omitted };
}
