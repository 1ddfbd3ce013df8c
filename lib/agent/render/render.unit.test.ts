import { describe, expect, it } from 'vitest';
import { HERMES_TOOL_TEMPLATE, STORIES260K_DIR } from '@/test/models';
import { HfTokenizer } from '@/lib/policy/hf/tokenizer';
import { toolSchemas } from '../tools/tool-definitions';
import { formatToolCall } from '../tools/call-formats/hermes';
import { ByteTemplateRenderer } from './byte-template';
import { ChatTemplateRenderer, TemplateNotPrefixStableError } from './chat-template';
import type { AgentChatMessage, ChatRenderer, RenderedConversation } from './chat-renderer';
import { truncateToolContent } from './chat-renderer';

// A Hermes/Qwen-style template (stories260K has none): <|im_start|>role\ncontent END\n, tools in the
// system turn, tool results as role "tool". END is the tokenizer's eos (a real special token here).
const HERMES = HERMES_TOOL_TEMPLATE;

const setup = { system: 'You fix bugs.', user: 'Make add() return the sum.', tools: toolSchemas() };
const turns = [
  formatToolCall('read_file', { path: 'calc.py' }),
  `The bug is the minus sign.\n${formatToolCall('str_replace', { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' })}`,
  formatToolCall('bash', { command: 'python3 test_calc.py' }),
  `${formatToolCall('read_file', { path: 'missing.py' })}${formatToolCall('bash', { command: 'true' })}`,
  formatToolCall('submit', {}),
];
const toolOutputs = [
  [{ name: 'read_file', content: 'def add(a, b):\n    return a - b\n' }],
  [{ name: 'str_replace', content: 'replaced 1 occurrence in calc.py' }],
  [{ name: 'bash', content: 'ok\n[exit code 0]' }],
  [
    { name: 'read_file', content: 'error: no such file: missing.py' },
    { name: 'bash', content: '[exit code 0]' },
  ],
];

/** Five assistant turns with tool messages in between, appended as an episode does. */
function play(r: ChatRenderer): { conv: RenderedConversation; sampled: number[][] } {
  const conv = r.begin(setup);
  const sampled: number[][] = [];
  turns.forEach((t, i) => {
    const tokens = r.assistantTokens(t);
    sampled.push(tokens);
    conv.appendAssistant(
      tokens,
      tokens.map(() => -0.5),
    );
    if (toolOutputs[i]) conv.appendTools(toolOutputs[i]!);
  });
  return { conv, sampled };
}

function checkMask(conv: RenderedConversation, sampled: number[][]): void {
  const { ids, lossMask, logprobs, spans } = conv.sequence;
  expect(lossMask).toHaveLength(ids.length);
  const assistant = spans.filter((s) => s.kind === 'assistant');
  expect(assistant).toHaveLength(5);
  // mask 1 exactly on the sampled tokens, which sit in the sequence unchanged
  assistant.forEach((s, i) => expect(ids.slice(s.start, s.end)).toEqual(sampled[i]));
  const ones = lossMask.flatMap((m, i) => (m ? [i] : []));
  expect(ones).toEqual(assistant.flatMap((s) => Array.from({ length: s.end - s.start }, (_, k) => s.start + k)));
  expect(logprobs.filter((l) => l !== null).length).toBe(ones.length);
}

describe('byte template renderer', () => {
  it('renders a 5-turn conversation incrementally exactly as all at once, and as the plain bytes of the text', () => {
    const r = new ByteTemplateRenderer();
    const { conv, sampled } = play(r);
    checkMask(conv, sampled);
    const whole = r.renderWhole(setup, conv.messages.slice(2) as AgentChatMessage[], sampled);
    expect(conv.sequence.ids).toEqual(whole);
    // the byte template is plain text with EOS after each assistant message
    const text = r.tokenizer.decode(conv.sequence.ids);
    expect(text).toContain('<|user|>\nMake add() return the sum.\n<|assistant|>\n<tool_call>');
    expect(text).toContain('<|tool|> read_file\ndef add(a, b):\n    return a - b\n\n<|assistant|>\n');
    expect(text).toContain('<|tool|> read_file\nerror: no such file: missing.py\n<|tool|> bash\n');
    expect(conv.sequence.ids[0]).toBe(r.tokenizer.spec.bos);
    expect(conv.sequence.ids.filter((i) => i === r.tokenizer.spec.eos)).toHaveLength(5);
    expect(conv.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(turns);
  });

  it('never re-tokenizes: each append leaves every earlier token as it was', () => {
    const r = new ByteTemplateRenderer();
    const conv = r.begin(setup);
    let before = [...conv.sequence.ids];
    turns.slice(0, 4).forEach((t, i) => {
      conv.appendAssistant(r.assistantTokens(t));
      expect(conv.sequence.ids.slice(0, before.length)).toEqual(before);
      before = [...conv.sequence.ids];
      conv.appendTools(toolOutputs[i]!);
      expect(conv.sequence.ids.slice(0, before.length)).toEqual(before);
      before = [...conv.sequence.ids];
    });
  });
});

describe('chat template renderer (stories260K tokenizer, Hermes-style template)', () => {
  it('renders a 5-turn conversation incrementally exactly as all at once', async () => {
    const tok = await HfTokenizer.load(STORIES260K_DIR);
    const r = new ChatTemplateRenderer(tok, { chatTemplate: HERMES, name: 'stories260K+hermes' });
    expect(r.stopTokens).toEqual([tok.eos]);
    const { conv, sampled } = play(r);
    checkMask(conv, sampled);
    const whole = r.renderWhole(setup, conv.messages.slice(2) as AgentChatMessage[], sampled);
    expect(conv.sequence.ids).toEqual(whole);
    // the environment spans are the template's own text: the tool schemas and the tool responses are in it
    const text = tok.decode(conv.sequence.ids, { skipSpecial: false });
    expect(text).toContain('<tools>');
    expect(text).toContain('<tool_response>');
    expect(text.endsWith('<|im_start|>assistant\n') || text.endsWith('</s>')).toBe(true);
    // the assistant messages the template saw are the decoded sampled tokens
    const said = conv.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
    said.forEach((s, i) => expect(s.replace(/\s+/g, ' ')).toBe(turns[i]!.replace(/\s+/g, ' ')));
  });

  it('renders a template that shows only the last message in full: history is never rendered again', async () => {
    const tok = await HfTokenizer.load(STORIES260K_DIR);
    // earlier messages lose their content when a message follows: rendering history again would rewrite it
    const lastOnly = HERMES.replace('{{- message.content -}}', '{%- if loop.last or message.role != "assistant" -%}{{- message.content -}}{%- endif -%}');
    const r = new ChatTemplateRenderer(tok, { chatTemplate: lastOnly });
    expect(() => play(r)).toThrow(TemplateNotPrefixStableError); // the stand-in assistant message is not rendered either: nothing to cut at
    const r2 = new ChatTemplateRenderer(tok, {
      chatTemplate: HERMES.replace(
        "{{- eos_token + '\\n' -}}",
        "{%- if message.role != 'assistant' or loop.last -%}{{- eos_token + '\\n' -}}{%- else -%}{{- eos_token + '\\n\\n' -}}{%- endif -%}",
      ),
    });
    const { conv, sampled } = play(r2); // renders the last assistant message differently: fine, it is never rendered again
    checkMask(conv, sampled);
  });

  it('fails loudly when assistant messages do not end with the end token', async () => {
    const tok = await HfTokenizer.load(STORIES260K_DIR);
    const r = new ChatTemplateRenderer(tok, { chatTemplate: HERMES.replace("{{- eos_token + '\\n' -}}", "{{- '<|im_end|>\\n' -}}") });
    const conv = r.begin(setup);
    conv.appendAssistant(r.assistantTokens(turns[0]!));
    expect(() => conv.appendTools(toolOutputs[0]!)).toThrow(/does not end an assistant message with "<\/s>"/);
  });
});

describe('long tool output', () => {
  it('is cut in the middle with a marker; the earlier sequence is untouched', () => {
    const r = new ByteTemplateRenderer();
    const conv = r.begin(setup);
    conv.appendAssistant(r.assistantTokens(turns[2]!));
    const before = [...conv.sequence.ids];
    conv.appendTools([{ name: 'bash', content: truncateToolContent('x'.repeat(50_000) + 'TAIL', 1000) }]);
    expect(conv.sequence.ids.slice(0, before.length)).toEqual(before);
    const added = r.tokenizer.decode(conv.sequence.ids.slice(before.length));
    expect(added).toContain('[tool output truncated: 49004 characters omitted]');
    expect(added).toContain('TAIL');
    expect(added.length).toBeLessThan(1200);
  });
});
