/**
 * How a model writes tool calls in its messages (lib/agent/tools/call-formats): one per model
 * family's convention. Chosen per model, detected from its chat template unless set.
 * - `hermes`: `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Hermes, Qwen2.5, Qwen3)
 * - `llama-json`: the whole message is `{"name": …, "parameters": {…}}` (Llama 3.1–3.3)
 * - `xml-function`: `<function=NAME><parameter=KEY>value</parameter></function>` (Qwen3-Coder, OpenHands, R2E-Gym)
 * - `mistral`: `[TOOL_CALLS][{"name": …, "arguments": {…}, "id": …}]` (Mistral, Mistral Nemo)
 */
export const TOOL_CALL_FORMATS = ['hermes', 'llama-json', 'xml-function', 'mistral'] as const;
export type ToolCallFormatName = (typeof TOOL_CALL_FORMATS)[number];

export const isToolCallFormat = (s: string): s is ToolCallFormatName => (TOOL_CALL_FORMATS as readonly string[]).includes(s);

/** Which format a chat template's own tool rendering implies (the model was trained on it); hermes when it shows none. */
export function detectToolCallFormat(chatTemplate: string | undefined): ToolCallFormatName {
  const t = chatTemplate ?? '';
  if (t.includes('[TOOL_CALLS]')) return 'mistral';
  if (t.includes('<function=')) return 'xml-function';
  if (t.includes('<tool_call>')) return 'hermes';
  if (t.includes('"parameters"') && (t.includes('ipython') || t.includes('<|python_tag|>'))) return 'llama-json';
  return 'hermes';
}
