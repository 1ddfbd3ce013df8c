import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectToolCallFormat, TOOL_CALL_FORMATS } from '@/core/tool-call-formats';
import { CHAT_FAMILIES, CHAT_TEMPLATES_DIR } from '@/test/chat-models';
import type { ParsedToolCall, ToolCallToWrite } from './call-format';
import { toolCallFormat } from './registry';

// Every tool-call format: what a model of the family writes parses back to the same calls
// (round trip), a malformed call becomes an error saying what was wrong (never a throw), and
// prose is not read as a call.

const CALLS: ToolCallToWrite[][] = [
  [{ name: 'bash', arguments: { command: 'ls -la && echo "a {b} [c]"\nprintf \'%s\\n\' x', timeout_s: 30 } }],
  [{ name: 'str_replace', arguments: { path: 'src/a.py', old_str: 'return a - b\n', new_str: 'return a + b  # </tool_call> } ]\n' } }],
  [{ name: 'submit', arguments: {} }],
  [
    { name: 'read_file', arguments: { path: 'a.py', start_line: 3, end_line: 9 } },
    { name: 'write_file', arguments: { path: 'b.txt', content: '' } },
  ],
];

const ok = (calls: ParsedToolCall[]) => calls.map((c) => (c.ok ? { name: c.name, arguments: c.arguments } : `error: ${c.error}`));

describe.each(TOOL_CALL_FORMATS)('tool-call format %s', (name) => {
  const format = toolCallFormat(name);

  it('parses back what it writes', () => {
    for (const calls of CALLS) expect(ok(format.parse(format.format(calls)).calls), JSON.stringify(calls)).toEqual(calls);
  });

  it('reads plain prose as no call', () => {
    expect(format.parse('I think the bug is in calc.py, line 3.').calls).toEqual([]);
    expect(format.parse('I think the bug is in calc.py, line 3.').content).toBe('I think the bug is in calc.py, line 3.');
  });

  it('states its syntax in the instructions', () => {
    expect(format.instructions.length).toBeGreaterThan(20);
  });
});

describe('malformed calls become errors that say what was wrong', () => {
  const cases: [string, string, RegExp][] = [
    ['hermes', '<tool_call>{"name": "bash", </tool_call>', /not valid JSON/],
    ['hermes', '<tool_call>{"arguments": {}}</tool_call>', /no "name"/],
    ['hermes', 'text <tool_call>{"name": "bash"', /without <\/tool_call>/],
    ['llama-json', '{"name": "bash", "parameters": {"command": "ls"}', /not closed/],
    ['llama-json', '{"name": "bash", "parameters": [1]}', /must be a JSON object/],
    ['llama-json', '{"parameters": {}}', /no "name"/],
    ['llama-json', '{"name": "bash", "parameters": {}} and then some prose', /not another call/],
    ['xml-function', '<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n', /without <\/function>/],
    ['xml-function', '<function=>\n</function>', /names no tool/],
    ['xml-function', '<function=bash>\n<parameter=command>\nls\n</parameter>\n<parameter=command>\npwd\n</parameter>\n</function>', /given twice/],
    ['xml-function', '<function=bash>\nls -la\n</function>', /outside any <parameter/],
    ['mistral', '[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}', /not followed by a closed JSON list/],
    ['mistral', '[TOOL_CALLS][{"name": "bash", "arguments": "{oops"}]', /not valid JSON/],
    ['mistral', '[TOOL_CALLS]please run ls', /not followed by a closed JSON list/],
  ];
  it.each(cases)('%s: %s', (name, text, error) => {
    const { calls } = toolCallFormat(name as (typeof TOOL_CALL_FORMATS)[number]).parse(text);
    expect(calls.length).toBeGreaterThan(0);
    const bad = calls.find((c) => !c.ok);
    expect(bad && !bad.ok && bad.error).toMatch(error);
  });
});

describe('what real models write', () => {
  it('Llama 3.1: after <|python_tag|>, several calls separated by ";"', () => {
    const r = toolCallFormat('llama-json').parse('<|python_tag|>{"name": "bash", "parameters": {"command": "ls"}}; {"name": "submit", "parameters": {}}');
    expect(ok(r.calls)).toEqual([
      { name: 'bash', arguments: { command: 'ls' } },
      { name: 'submit', arguments: {} },
    ]);
  });

  it('Qwen3-Coder: values typed by the tool schema, the <tool_call> wrapper optional, a missing </parameter> tolerated', () => {
    const r = toolCallFormat('xml-function').parse(
      'Let me look.\n<function=read_file>\n<parameter=path>\nsrc/a.py\n<parameter=start_line>\n12\n</parameter>\n</function>',
    );
    expect(r.content).toBe('Let me look.');
    expect(ok(r.calls)).toEqual([{ name: 'read_file', arguments: { path: 'src/a.py', start_line: 12 } }]);
  });

  it('Mistral: the call ids are kept (tool results answer them)', () => {
    const r = toolCallFormat('mistral').parse('Checking.[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}, "id": "Ab3dE6gH9"}]');
    expect(r.content).toBe('Checking.');
    expect(r.calls).toEqual([{ ok: true, name: 'bash', arguments: { command: 'ls' }, id: 'Ab3dE6gH9' }]);
  });
});

describe('detected from the chat template', () => {
  it.each(CHAT_FAMILIES)('$name → $format', (f) => {
    expect(detectToolCallFormat(fs.readFileSync(path.join(CHAT_TEMPLATES_DIR, f.template), 'utf8'))).toBe(f.format);
  });

  it('a Qwen3-Coder style template → xml-function; no template → hermes', () => {
    expect(detectToolCallFormat('{{- "<tool_call>\\n<function=" + tool_call.name + ">\\n" }}')).toBe('xml-function');
    expect(detectToolCallFormat(undefined)).toBe('hermes');
  });
});
