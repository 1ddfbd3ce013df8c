import { describe, expect, it } from 'vitest';
import { assistantProse, capText, describeToolCall, editAsDiff } from './tool-call-display';

describe('assistant message prose', () => {
  it('drops the tool-call blocks (shown as calls) and keeps what the agent wrote around them', () => {
    const text = 'Let me look.\n<tool_call>{"name":"read_file","arguments":{"path":"a.py"}}</tool_call>\nThen test.<tool_call>{"name":"bash"';
    expect(assistantProse(text)).toBe('Let me look.\n\nThen test.');
    expect(assistantProse('<tool_call>{"name":"submit","arguments":{}}</tool_call>')).toBe('');
  });
});

describe('tool call arguments as the tool reads them', () => {
  it('bash: the command, multi-line commands in full, the timeout', () => {
    expect(describeToolCall('bash', { command: 'python3 -m pytest -q' })).toEqual({ summary: '$ python3 -m pytest -q', blocks: [] });
    expect(describeToolCall('bash', { command: 'cd src\nls', timeout_s: 30 })).toEqual({
      summary: '$ cd src … (timeout 30 s)',
      blocks: [{ label: 'command', text: 'cd src\nls', kind: 'command' }],
    });
  });

  it('read_file with and without a line range; write_file with its content', () => {
    expect(describeToolCall('read_file', { path: 'a.py' }).summary).toBe('a.py');
    expect(describeToolCall('read_file', { path: 'a.py', start_line: 3 }).summary).toBe('a.py, lines 3–end');
    expect(describeToolCall('write_file', { path: 'b.py', content: 'x = 1\ny = 2\n' })).toEqual({
      summary: 'b.py (2 lines)',
      blocks: [{ label: 'new content', text: 'x = 1\ny = 2\n', kind: 'code' }],
    });
  });

  it('str_replace as -/+ lines', () => {
    expect(editAsDiff('a < b\n', 'a <= b\nok\n')).toBe('-a < b\n+a <= b\n+ok');
    expect(describeToolCall('str_replace', { path: 'c.py', old_str: 'x', new_str: '' })).toEqual({
      summary: 'c.py',
      blocks: [{ label: 'edit', text: '-x', kind: 'diff' }],
    });
  });

  it('an unknown tool, wrong argument types or extra keys: the JSON as written', () => {
    expect(describeToolCall('rm_rf', { path: '/' }).blocks).toEqual([{ label: 'arguments', text: '{\n  "path": "/"\n}', kind: 'code' }]);
    expect(describeToolCall('bash', { command: 7 }).blocks[0]!.label).toBe('arguments');
    expect(describeToolCall('read_file', { path: 'a', mode: 'rb' }).blocks[0]!.label).toBe('arguments');
    expect(describeToolCall('submit', {})).toEqual({ summary: 'the workspace as it is now goes to grading', blocks: [] });
  });
});

describe('capped output', () => {
  it('short text is shown whole', () => {
    expect(capText('a\nb', 3)).toEqual({ shown: 'a\nb', hiddenLines: 0, capped: false });
  });
  it('long text: the first lines, and how many more', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    expect(capText(text, 4)).toEqual({ shown: 'line 0\nline 1\nline 2\nline 3', hiddenLines: 6, capped: true });
  });
  it('one very long line is cut by characters', () => {
    expect(capText('x'.repeat(50), 10, 20)).toEqual({ shown: 'x'.repeat(20), hiddenLines: 0, capped: true });
  });
});
