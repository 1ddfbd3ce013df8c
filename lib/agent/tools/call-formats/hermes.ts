import {
  jsonCall,
  jsonValueEnd,
  parseJson,
  shorten,
  type ParsedAssistant,
  type ParsedToolCall,
  type ToolCallFormat,
  type ToolCallToWrite,
} from './call-format';

/**
 * Hermes / Qwen tool calls: `<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>`,
 * any number per message, free text around them kept as the message's content.
 */
export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';
const EXAMPLE = '{"name": "TOOL", "arguments": {...}}';

function parseOne(raw: string): ParsedToolCall {
  const body = raw.trim();
  const json = parseJson(body);
  if (!json.ok) return { ok: false, raw, error: `the tool call is not valid JSON (${json.error}): ${shorten(body)}; write ${EXAMPLE}` };
  return jsonCall(json.value, raw, ['arguments'], EXAMPLE);
}

/** Where the call's </tool_call> is: after its JSON object when it has one (a string in it may spell the tag), else the first. */
function closingTag(text: string, start: number): number {
  const brace = text.slice(start).search(/\S/);
  if (brace >= 0 && text[start + brace] === '{') {
    const end = jsonValueEnd(text, start + brace);
    const after = end < 0 ? -1 : text.slice(end).search(/\S/);
    if (after >= 0 && text.startsWith(TOOL_CALL_CLOSE, end + after)) return end + after;
  }
  return text.indexOf(TOOL_CALL_CLOSE, start);
}

export function parseToolCalls(text: string): ParsedAssistant {
  const calls: ParsedToolCall[] = [];
  const content: string[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf(TOOL_CALL_OPEN, at);
    if (open < 0) {
      content.push(text.slice(at));
      break;
    }
    content.push(text.slice(at, open));
    const start = open + TOOL_CALL_OPEN.length;
    const close = closingTag(text, start);
    if (close < 0) {
      calls.push({ ok: false, raw: text.slice(start), error: `${TOOL_CALL_OPEN} without ${TOOL_CALL_CLOSE}: the call was cut off or not closed` });
      break;
    }
    calls.push(parseOne(text.slice(start, close)));
    at = close + TOOL_CALL_CLOSE.length;
  }
  return { content: content.join('').trim(), calls };
}

/** The text form of one call, as a policy writes it. */
export function formatToolCall(name: string, args: Record<string, unknown>): string {
  return `${TOOL_CALL_OPEN}${JSON.stringify({ name, arguments: args })}${TOOL_CALL_CLOSE}`;
}

export const hermesFormat: ToolCallFormat = {
  name: 'hermes',
  instructions: `write each call as ${TOOL_CALL_OPEN}${EXAMPLE}${TOOL_CALL_CLOSE}`,
  parse: parseToolCalls,
  format: (calls: ToolCallToWrite[]) => calls.map((c) => formatToolCall(c.name, c.arguments)).join('\n'),
};
