import { describe, expect, it } from 'vitest';
import { TOOL_CALL_FORMATS } from '@/core/tool-call-formats';
import { toolCallFormat } from '@/lib/agent/tools/call-formats/registry';
import { assistantMessage } from './assistant-message';

describe('a model message as an OpenAI assistant message', () => {
  for (const name of TOOL_CALL_FORMATS)
    it(`${name}: the calls become structured tool_calls with JSON-string arguments`, () => {
      const f = toolCallFormat(name);
      const text = f.format([
        { name: 'bash', arguments: { command: 'ls -la' } },
        { name: 'read_file', arguments: { path: 'src/a.py' } },
      ]);
      const m = assistantMessage(text, f);
      expect(m.tool_calls?.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ['function', 'bash', { command: 'ls -la' }],
        ['function', 'read_file', { path: 'src/a.py' }],
      ]);
      expect(new Set(m.tool_calls!.map((c) => c.id)).size).toBe(2);
      expect(m.content).toBeNull();
    });
  it('without tools offered, or without a call, the text is the content', () => {
    const text = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>';
    expect(assistantMessage(text, undefined)).toEqual({ role: 'assistant', content: text, refusal: null });
    expect(assistantMessage('Hello there.', toolCallFormat('hermes'))).toEqual({ role: 'assistant', content: 'Hello there.', refusal: null });
  });
  it('text beside a call stays as content', () => {
    const m = assistantMessage('Let me look.\n<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>', toolCallFormat('hermes'));
    expect(m.content).toBe('Let me look.');
    expect(m.tool_calls).toHaveLength(1);
  });
});
