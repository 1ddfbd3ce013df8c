import { describe, expect, it } from 'vitest';
import { formatToolCall, parseToolCalls } from './call-formats/hermes';
import { resolveWorkspacePath } from './workspace-paths';
import { toolSchemas } from './tool-definitions';
import { capText } from './output-caps';

describe('tool calls in assistant text (<tool_call> convention)', () => {
  it('reads one or more calls and keeps the text around them as content', () => {
    const text = `Let me look.\n${formatToolCall('read_file', { path: 'a.py' })}\nthen\n<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>`;
    const r = parseToolCalls(text);
    expect(r.content).toBe('Let me look.\n\nthen');
    expect(r.calls).toEqual([
      { ok: true, name: 'read_file', arguments: { path: 'a.py' } },
      { ok: true, name: 'bash', arguments: { command: 'ls' } },
    ]);
  });

  it('accepts arguments as a JSON string (OpenAI wire format) and a call without arguments', () => {
    expect(parseToolCalls('<tool_call>{"name":"bash","arguments":"{\\"command\\":\\"pwd\\"}"}</tool_call>').calls).toEqual([
      { ok: true, name: 'bash', arguments: { command: 'pwd' } },
    ]);
    expect(parseToolCalls('<tool_call>{"name":"submit"}</tool_call>').calls).toEqual([{ ok: true, name: 'submit', arguments: {} }]);
  });

  it('turns malformed calls into errors, never throws', () => {
    const cases: [string, RegExp][] = [
      ['<tool_call>{"name": "bash", </tool_call>', /not valid JSON/],
      ['<tool_call>{"arguments": {}}</tool_call>', /no "name"/],
      ['<tool_call>[1,2]</tool_call>', /must be a JSON object/],
      ['<tool_call>{"name":"bash","arguments":[1]}</tool_call>', /arguments of bash must be a JSON object/],
      ['<tool_call>{"name":"bash","arguments":"{oops"}</tool_call>', /not valid JSON/],
      ['text <tool_call>{"name": "bash"', /without <\/tool_call>/],
    ];
    for (const [text, error] of cases) {
      const { calls } = parseToolCalls(text);
      expect(calls, text).toHaveLength(1);
      expect(calls[0]!.ok, text).toBe(false);
      expect(calls[0]!.ok === false && calls[0]!.error, text).toMatch(error);
    }
  });

  it('a message without calls has none', () => {
    expect(parseToolCalls('I think the bug is in a.py').calls).toEqual([]);
  });
});

describe('workspace paths', () => {
  it('resolves relative and inside-absolute paths, refuses escapes', () => {
    expect(resolveWorkspacePath('/work/repo', 'src/a.py')).toMatchObject({ ok: true, path: '/work/repo/src/a.py', relative: 'src/a.py' });
    expect(resolveWorkspacePath('/work/repo', '/work/repo/b.py')).toMatchObject({ ok: true, relative: 'b.py' });
    expect(resolveWorkspacePath('/work/repo', 'src/../b.py')).toMatchObject({ ok: true, relative: 'b.py' });
    for (const bad of ['../x', '/etc/passwd', 'a/../../x', '/work/repository/x', '.', '/work/repo'])
      expect(resolveWorkspacePath('/work/repo', bad).ok, bad).toBe(false);
  });
});

describe('tool schemas', () => {
  it('come from the zod definitions as OpenAI-style function schemas', () => {
    const schemas = toolSchemas();
    expect(schemas.map((s) => s.function.name)).toEqual(['bash', 'read_file', 'write_file', 'str_replace', 'submit']);
    const sr = schemas.find((s) => s.function.name === 'str_replace')!;
    expect(sr.type).toBe('function');
    expect(sr.function.parameters).toMatchObject({
      type: 'object',
      required: ['path', 'old_str', 'new_str'],
      additionalProperties: false,
      properties: { path: { type: 'string' }, old_str: { type: 'string' } },
    });
    expect(schemas.find((s) => s.function.name === 'read_file')!.function.parameters).toMatchObject({
      properties: { start_line: { type: 'integer', minimum: 1 } },
      required: ['path'],
    });
  });
});

describe('output caps', () => {
  it('keep head and tail and say how many bytes were cut', () => {
    const r = capText('a'.repeat(1000) + 'END', 100);
    expect(r.omittedBytes).toBe(903);
    expect(r.text).toContain('[output truncated: 903 bytes omitted]');
    expect(r.text.endsWith('END')).toBe(true);
    expect(capText('short', 100)).toEqual({ text: 'short', omittedBytes: 0 });
  });
});
