import { jsonCall, jsonValueEnd, parseJson, shorten, type ParsedToolCall, type ToolCallFormat } from './call-format';

/**
 * Mistral tool calls: `[TOOL_CALLS]` (a control token in Mistral's own tokenizers) and a JSON
 * array `[{"name": …, "arguments": {…}, "id": "abcDEF123"}]`; text before it is the content.
 * Mistral's templates want 9-character alphanumeric call ids; a call without one gets one.
 */
export const MISTRAL_TOOL_CALLS = '[TOOL_CALLS]';
const EXAMPLE = '[{"name": "TOOL", "arguments": {...}}]';

export const mistralFormat: ToolCallFormat = {
  name: 'mistral',
  instructions: `write the calls as ${MISTRAL_TOOL_CALLS}${EXAMPLE}`,
  parse(text) {
    const at = text.indexOf(MISTRAL_TOOL_CALLS);
    if (at < 0) return { content: text.trim(), calls: [] };
    const content = text.slice(0, at).trim();
    const body = text.slice(at + MISTRAL_TOOL_CALLS.length).trim();
    const end = body.startsWith('[') || body.startsWith('{') ? jsonValueEnd(body, 0) : -1;
    if (end < 0)
      return {
        content,
        calls: [
          {
            ok: false,
            raw: body,
            error: `${MISTRAL_TOOL_CALLS} is not followed by a closed JSON list of calls: ${shorten(body)}; write ${MISTRAL_TOOL_CALLS}${EXAMPLE}`,
          },
        ],
      };
    const json = parseJson(body.slice(0, end));
    if (!json.ok) return { content, calls: [{ ok: false, raw: body, error: `the tool calls are not valid JSON (${json.error}): ${shorten(body)}` }] };
    const items = Array.isArray(json.value) ? json.value : [json.value];
    const calls: ParsedToolCall[] = items.map((v) => jsonCall(v, JSON.stringify(v), ['arguments'], EXAMPLE));
    const rest = body.slice(end).trim();
    if (rest) calls.push({ ok: false, raw: rest, error: `text after the tool calls: ${shorten(rest)}; nothing may follow the list` });
    return { content, calls };
  },
  format: (calls) => `${MISTRAL_TOOL_CALLS}${JSON.stringify(calls.map((c, i) => ({ name: c.name, arguments: c.arguments, id: mistralCallId(i) })))}`,
};

/** A 9-character alphanumeric id, as Mistral's templates require, deterministic in the call's index. */
export function mistralCallId(i: number): string {
  return `call${String(i).padStart(5, '0')}`;
}
