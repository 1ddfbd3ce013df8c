/**
 * Tool calls in assistant text, in the convention Qwen and Hermes chat templates use:
 * `<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>`, any number per
 * message, with free text around them kept as the message's content. Nothing here throws:
 * a call that cannot be read becomes an entry with `error`, which the episode turns into an
 * error observation for the agent.
 */

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

export type ParsedToolCall = { ok: true; name: string; arguments: Record<string, unknown> } | { ok: false; error: string; raw: string; name?: string };

export type ParsedAssistant = { content: string; calls: ParsedToolCall[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shorten = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

function parseOne(raw: string): ParsedToolCall {
  const body = raw.trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { ok: false, raw, error: `tool call is not valid JSON (${(e as Error).message}): ${shorten(body)}; write {"name": "TOOL", "arguments": {...}}` };
  }
  if (!isObject(value)) return { ok: false, raw, error: 'tool call must be a JSON object like {"name": "TOOL", "arguments": {...}}' };
  const name = value.name;
  if (typeof name !== 'string' || !name) return { ok: false, raw, error: 'tool call has no "name" (a string naming the tool)' };
  let args = value.arguments ?? {};
  // OpenAI's wire format carries arguments as a JSON string; accept it too
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch (e) {
      return { ok: false, raw, name, error: `arguments of ${name} are a string that is not valid JSON (${(e as Error).message})` };
    }
  }
  if (!isObject(args)) return { ok: false, raw, name, error: `arguments of ${name} must be a JSON object` };
  return { ok: true, name, arguments: args };
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
    const close = text.indexOf(TOOL_CALL_CLOSE, start);
    if (close < 0) {
      calls.push({ ok: false, raw: text.slice(start), error: `${TOOL_CALL_OPEN} without ${TOOL_CALL_CLOSE}: the call was cut off or not closed` });
      break;
    }
    calls.push(parseOne(text.slice(start, close)));
    at = close + TOOL_CALL_CLOSE.length;
  }
  return { content: content.join('').trim(), calls };
}

/** The text form of one call, as a policy writes it (the scripted policy uses this). */
export function formatToolCall(name: string, args: Record<string, unknown>): string {
  return `${TOOL_CALL_OPEN}${JSON.stringify({ name, arguments: args })}${TOOL_CALL_CLOSE}`;
}
