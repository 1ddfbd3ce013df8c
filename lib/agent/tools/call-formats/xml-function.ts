import { AGENT_TOOL_NAMES } from '@/core/repo-tasks';
import { toolSchemas, type ToolSchema } from '../tool-definitions';
import { parseJson, shorten, type ParsedToolCall, type ToolCallFormat } from './call-format';

/**
 * XML-style tool calls (Qwen3-Coder, OpenHands, R2E-Gym):
 *
 *   <tool_call>
 *   <function=bash>
 *   <parameter=command>
 *   ls -la
 *   </parameter>
 *   </function>
 *   </tool_call>
 *
 * Values are raw text (one new line after the opening tag and before the closing one is not
 * part of it), converted to the type the tool's schema declares (integers, booleans, JSON for
 * objects and arrays). The `<tool_call>` wrapper is optional; a missing `</parameter>` ends at
 * the next parameter, as Qwen3-Coder's own parser allows.
 */
const FN = /<function=([^>\n]*)>/g;
const PARAM = /<parameter=([^>\n]*)>/g;
const EXAMPLE = '<function=TOOL>\n<parameter=NAME>\nvalue\n</parameter>\n</function>';

const declaredTypes = new Map<string, Record<string, unknown>>(
  toolSchemas(AGENT_TOOL_NAMES).map((s: ToolSchema) => [s.function.name, (s.function.parameters.properties ?? {}) as Record<string, unknown>]),
);

function typed(tool: string, key: string, value: string): unknown {
  const spec = declaredTypes.get(tool)?.[key] as { type?: string } | undefined;
  switch (spec?.type) {
    case 'integer':
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      return value.trim() === 'true' ? true : value.trim() === 'false' ? false : value;
    case 'object':
    case 'array': {
      const j = parseJson(value);
      return j.ok ? j.value : value;
    }
    default:
      return value;
  }
}

const trimOneNewline = (s: string) => s.replace(/^\n/, '').replace(/\n$/, '');

function parseFunction(name: string, body: string, raw: string): ParsedToolCall {
  if (!name.trim()) return { ok: false, raw, error: `<function=…> names no tool; write ${EXAMPLE}` };
  const args: Record<string, unknown> = {};
  const opens = [...body.matchAll(PARAM)];
  const outside = opens.length ? body.slice(0, opens[0]!.index) : body;
  if (outside.trim()) return { ok: false, raw, name, error: `text inside <function=${name}> outside any <parameter=…>: ${shorten(outside.trim())}` };
  for (let i = 0; i < opens.length; i++) {
    const m = opens[i]!;
    const key = m[1]!.trim();
    const from = m.index! + m[0].length;
    const to = i + 1 < opens.length ? opens[i + 1]!.index! : body.length;
    let value = body.slice(from, to);
    const close = value.lastIndexOf('</parameter>');
    if (close >= 0) {
      if (value.slice(close + '</parameter>'.length).trim())
        return { ok: false, raw, name, error: `text after </parameter> of ${key}: ${shorten(value.slice(close))}` };
      value = value.slice(0, close);
    }
    if (key in args) return { ok: false, raw, name, error: `parameter ${key} is given twice` };
    args[key] = typed(name.trim(), key, trimOneNewline(value));
  }
  return { ok: true, name: name.trim(), arguments: args };
}

export const xmlFunctionFormat: ToolCallFormat = {
  name: 'xml-function',
  instructions: `write each call as <tool_call>\n${EXAMPLE}\n</tool_call>`,
  parse(text) {
    const calls: ParsedToolCall[] = [];
    const content: string[] = [];
    let at = 0;
    for (const m of text.matchAll(FN)) {
      if (m.index! < at) continue;
      content.push(text.slice(at, m.index));
      const from = m.index! + m[0].length;
      const close = text.indexOf('</function>', from);
      if (close < 0) {
        calls.push({ ok: false, raw: text.slice(m.index), name: m[1], error: `<function=${m[1]}> without </function>: the call was cut off or not closed` });
        at = text.length;
        break;
      }
      calls.push(parseFunction(m[1]!, text.slice(from, close), text.slice(m.index, close + '</function>'.length)));
      at = close + '</function>'.length;
    }
    content.push(text.slice(at));
    return {
      content: content
        .join('')
        .replace(/<\/?tool_call>/g, '')
        .trim(),
      calls,
    };
  },
  format: (calls) =>
    calls
      .map((c) => {
        const params = Object.entries(c.arguments).map(([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>\n`);
        return `<tool_call>\n<function=${c.name}>\n${params.join('')}</function>\n</tool_call>`;
      })
      .join('\n'),
};
