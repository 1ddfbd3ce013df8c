import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Template } from '@huggingface/jinja';
import { episodeSandboxLimits } from '@/core/run-config';
import { HERMES_TOOL_TEMPLATE, STORIES260K_DIR } from '@/test/models';
import { runAgentEpisode } from '@/lib/agent/episode/run-episode';
import { pyTask } from '@/lib/agent/grade/grade-fixtures';
import { ScriptedPolicy } from '@/lib/agent/policies/scripted';
import { ChatTemplateRenderer } from '@/lib/agent/render/chat-template';
import { toolSchemas } from '@/lib/agent/tools/tool-definitions';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { testManager } from '@/lib/sandbox/sandbox.testkit';
import { DEFAULT_TEMPLATE_LIMITS, renderBounded, TemplateLimitError, TemplateRenderError } from './bounded-template';
import { HfTokenizer } from './tokenizer';

// Chat templates are programs shipped with a model (issue 31 §4): rendered on a render thread
// within a step, character and time budget, with a hard kill behind it, they fail with
// TemplateLimitError instead of hanging the process that renders them, and an honest template
// renders exactly as @huggingface/jinja renders it.

const conversation = [
  { role: 'system', content: 'You fix bugs.' },
  { role: 'user', content: 'Make add() return the sum.' },
  { role: 'assistant', content: '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' },
  { role: 'tool', content: 'calc.py\ntest_calc.py' },
];

// A string of 2^21 characters and a list of 2^12 references to it, built in a few dozen steps
const BIG_LIST =
  "{% set ns = namespace(s='x', l=[]) %}{% for i in range(21) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{% set ns.l = [ns.s] %}{% for i in range(12) %}{% set ns.l = ns.l + ns.l %}{% endfor %}";

describe('renderBounded', () => {
  it('renders a real tool-calling template exactly as the library does', () => {
    const items = { messages: conversation, tools: toolSchemas(), add_generation_prompt: true, eos_token: '</s>' };
    expect(renderBounded(HERMES_TOOL_TEMPLATE, items)).toBe(new Template(HERMES_TOOL_TEMPLATE).render(items));
    // range() keeps jinja's semantics
    expect(renderBounded('{{ range(3)|join(",") }} {{ range(1,7,2)|join(",") }} {{ range(5,0,-2)|join(",") }}', {})).toBe('0,1,2 1,3,5 5,3,1');
  });

  it('stops a loop by its step count, a growing string by its size, a huge range() before it is built', () => {
    const limits = { ...DEFAULT_TEMPLATE_LIMITS, steps: 10_000 };
    expect(() => renderBounded('{% for i in range(9000) %}{% for j in range(9000) %}.{% endfor %}{% endfor %}', {}, limits)).toThrow(
      /took more than 10000 steps/,
    );
    expect(() => renderBounded('{% for i in range(4000000) %}{{ i }}{% endfor %}', {})).toThrow(/asked for range\(\) of 4000000 items/);
    expect(() => renderBounded("{% set ns = namespace(s='xx') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}", {})).toThrow(
      TemplateLimitError,
    );
    // the budget is per render: the next render of an honest template works
    expect(renderBounded('{{ messages[0].content }}', { messages: conversation })).toBe('You fix bugs.');
  });

  it('one filter call that runs on inside a single step (|sort of a list of long strings) is stopped by the hard ceiling', () => {
    expect(renderBounded('{{ 1 }}', {})).toBe('1'); // the thread is up: the ceiling below is the render's own
    const limits = { ...DEFAULT_TEMPLATE_LIMITS, ms: 500 };
    let err: unknown;
    try {
      renderBounded(`${BIG_LIST}{{ (ns.l|sort)|length }}`, {}, limits);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateLimitError);
    expect((err as Error).message).toMatch(/did not finish rendering within 5500 ms .* and was stopped/);
    // a fresh thread takes the next render
    expect(renderBounded('{{ messages[1].content }}', { messages: conversation })).toBe('Make add() return the sum.');
  });

  it("a template's own error is a TemplateRenderError with its message", () => {
    expect(() => renderBounded("{{ raise_exception('Conversation roles must alternate user/assistant') }}", {})).toThrow(
      new TemplateRenderError('Conversation roles must alternate user/assistant'),
    );
  });

  it("HfTokenizer.renderChat applies the limits to a model's own template", async () => {
    const tok = await HfTokenizer.load(STORIES260K_DIR);
    const looping = Object.create(tok) as HfTokenizer;
    const source = '{% for i in range(1999999) %}{% for j in range(1999999) %}x{% endfor %}{% endfor %}';
    Object.defineProperty(looping, 'template', { value: new Template(source) });
    Object.defineProperty(looping, 'chatTemplate', { value: source });
    expect(() => looping.renderChat(conversation, { limits: { ...DEFAULT_TEMPLATE_LIMITS, steps: 50_000 } })).toThrow(TemplateLimitError);
  });
});

describe('an agent episode whose template exceeds its limits', () => {
  let manager: SandboxManager;
  let cleanup: () => Promise<void>;
  beforeAll(() => {
    ({ manager, cleanup } = testManager('bounded-template'));
  });
  afterAll(async () => cleanup?.());

  it('fails with TemplateLimitError (a configuration error), not a sandbox error to retry, and releases its sandbox', async () => {
    const tok = await HfTokenizer.load(STORIES260K_DIR);
    // honest until the first tool message arrives, then a loop that never ends in practice
    const template =
      HERMES_TOOL_TEMPLATE +
      "{% if messages|selectattr('role', 'equalto', 'tool')|list|length > 0 %}{% for i in range(1999999) %}{% for j in range(1999999) %}x{% endfor %}{% endfor %}{% endif %}";
    const renderer = new ChatTemplateRenderer(tok, { chatTemplate: template });
    const task = { ...pyTask(), environment: 'default' };
    const run = runAgentEpisode({
      manager,
      task,
      policy: new ScriptedPolicy([{ name: 'bash', arguments: { command: 'ls' } }]),
      renderer,
      limits: episodeSandboxLimits,
      maxTurns: 3,
      maxNewTokens: 256,
      tokenBudget: 8192,
    });
    await expect(run).rejects.toThrow(TemplateLimitError);
    expect(manager.stats().busy).toBe(0);
  });
});
