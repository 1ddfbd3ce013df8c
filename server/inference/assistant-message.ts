import { randomUUID } from 'node:crypto';
import type { ToolCallFormat } from '@/lib/agent/tools/call-formats/call-format';

/**
 * The model's text as an OpenAI assistant message: with tools offered, the calls it wrote in
 * its family's format become structured `tool_calls` (arguments as a JSON string, an id where
 * the format has none) and the rest is `content` (null when nothing else was said). A
 * malformed call stays in the text, where the client can see what the model wrote.
 */
export function assistantMessage(text: string, format: ToolCallFormat | undefined) {
  const parsed = format ? format.parse(text) : { content: text, calls: [] };
  const calls = parsed.calls.flatMap((c) =>
    c.ok
      ? [
          {
            id: c.id ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
            type: 'function' as const,
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          },
        ]
      : [],
  );
  if (!calls.length) return { role: 'assistant' as const, content: text, refusal: null };
  return { role: 'assistant' as const, content: parsed.content.trim() || null, refusal: null, tool_calls: calls };
}
