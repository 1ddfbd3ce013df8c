import { Template } from '@huggingface/jinja';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { HERMES_TOOL_TEMPLATE, STORIES260K_DIR } from '@/test/models';
import { runAgentEpisode } from '@/workers/agent/episode/run-episode';
import { ScriptedPolicy } from '@/workers/agent/policies/scripted';
import { ChatTemplateRenderer } from '@/workers/agent/render/chat-template';
import { toolSchemas } from '@/workers/agent/tools/tool-definitions';
import { resolveRepoTask } from '@/workers/agent/workspace/resolve-task';
import type { SandboxManager } from '@/workers/sandbox/pool/manager';
import { testManager } from '@/workers/sandbox/test-support';
import { DEFAULT_TEMPLATE_LIMITS, renderBounded, TemplateLimitError } from './bounded-template';
import { HfTokenizer } from './tokenizer';

// Chat templates are programs shipped with a model (issue 31 §4): rendered within a step,
// character and time budget, they fail with TemplateLimitError instead of hanging the process
// that renders them, and an honest template renders exactly as @huggingface/jinja renders it.

const conversation = [
  { role: 'system', content: 'You fix bugs.' },
  { role: 'user', content: 'Make add() return the sum.' },
  { role: 'assistant', content: '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' },
  { role: 'tool', content: 'calc.py\ntest_calc.py' },
];

describe('renderBounded', () => {
  it('renders a real tool-calling template exactly as the library does', () => {
    const t = new Template(HERMES_TOOL_TEMPLATE);
    const items = { messages: conversation, tools: toolSchemas(), add_generation_prompt: true, eos_token: '</s>' };
    expect(renderBounded(t, items)).toBe(t.render(items));
    // range() keeps jinja's semantics
    expect(renderBounded(new Template('{{ range(3)|join(",") }} {{ range(1,7,2)|join(",") }} {{ range(5,0,-2)|join(",") }}'), {})).toBe('0,1,2 1,3,5 5,3,1');
  });

  it('stops a loop by its step count, a growing string by its size, a huge range() before it is built', () => {
    const limits = { ...DEFAULT_TEMPLATE_LIMITS, steps: 10_000 };
    expect(() => renderBounded(new Template('{% for i in range(9000) %}{% for j in range(9000) %}.{% endfor %}{% endfor %}'), {}, limits)).toThrow(
      /took more than 10000 steps/,
    );
    expect(() => renderBounded(new Template('{% for i in range(4000000) %}{{ i }}{% endfor %}'), {})).toThrow(/asked for range\(\) of 4000000 items/);
    expect(() =>
      renderBounded(new Template("{% set ns = namespace(s='xx') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"), {}),
    ).toThrow(TemplateLimitError);
    // the budget is per render: the next render of an honest template works
    expect(renderBounded(new Template('{{ messages[0].content }}'), { messages: conversation })).toBe('You fix bugs.');
  });

  it("HfTokenizer.renderChat applies the limits to a model's own template", async () => {
    const tok = await HfTokenizer.load(STORIES260K_DIR);
    const looping = Object.create(tok) as HfTokenizer;
    Object.defineProperty(looping, 'template', { value: new Template('{% for i in range(1999999) %}{% for j in range(1999999) %}x{% endfor %}{% endfor %}') });
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
    const task = {
      ...resolveRepoTask(
        crucibleRepoTaskLine.parse({
          id: 't',
          language: 'python',
          problem_statement: 'fix',
          workspace: { files: { 'a.py': 'x = 1\n' } },
          FAIL_TO_PASS: ['a.py::t'],
        }),
        { baseDir: '/tmp' },
      ),
      environment: 'default',
    };
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
