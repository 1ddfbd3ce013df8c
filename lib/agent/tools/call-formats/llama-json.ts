import { jsonCall, jsonValueEnd, parseJson, shorten, type ParsedToolCall, type ToolCallFormat } from './call-format';

/**
 * Llama 3.1–3.3 tool calls: the whole message is `{"name": "bash", "parameters": {"command": "ls"}}`
 * (Meta's format; `arguments` accepted too), optionally after `<|python_tag|>`, several separated
 * by `;` or new lines. A message that does not start with `{` is plain text with no call, so prose
 * or code with braces in it is never read as a call.
 */
const PYTHON_TAG = '<|python_tag|>';
const EXAMPLE = '{"name": "TOOL", "parameters": {...}}';

export const llamaJsonFormat: ToolCallFormat = {
  name: 'llama-json',
  instructions: `to call a tool, answer with only ${EXAMPLE}`,
  parse(text) {
    let body = text.trim();
    if (body.startsWith(PYTHON_TAG)) body = body.slice(PYTHON_TAG.length).trim();
    if (!body.startsWith('{')) return { content: text.trim(), calls: [] };
    const calls: ParsedToolCall[] = [];
    let at = 0;
    while (at < body.length) {
      const end = jsonValueEnd(body, at);
      if (end < 0) {
        calls.push({ ok: false, raw: body.slice(at), error: `the tool call is not closed (no matching "}"): ${shorten(body.slice(at))}` });
        break;
      }
      const raw = body.slice(at, end);
      const json = parseJson(raw);
      calls.push(
        json.ok
          ? jsonCall(json.value, raw, ['parameters', 'arguments'], EXAMPLE)
          : { ok: false, raw, error: `the tool call is not valid JSON (${json.error}): ${shorten(raw)}` },
      );
      const rest = body.slice(end).replace(/^[\s;]+/, '');
      if (rest && !rest.startsWith('{')) {
        calls.push({
          ok: false,
          raw: rest,
          error: `text after the tool call is not another call: ${shorten(rest)}; a message with a call holds only ${EXAMPLE}`,
        });
        break;
      }
      at = body.length - rest.length;
    }
    return { content: '', calls };
  },
  format: (calls) => calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('; '),
};
