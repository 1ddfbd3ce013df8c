import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crucibleRepoTaskLine } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { HfPolicy } from '@/lib/policy/hf/hf-policy';
import { testManager } from '@/lib/sandbox/sandbox.testkit';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import { CHAT_FAMILIES, familyModelDir } from '@/test/chat-models';
import { SampledAgentPolicy } from '../policies/sampled-policy';
import { ScriptedPolicy } from '../policies/scripted';
import { ChatTemplateRenderer } from '../render/chat-template';
import { resolveRepoTask } from '../workspace/resolve-task';
import { runAgentEpisode } from './run-episode';

// Agent episodes end to end with each vendored chat template (test/chat-templates) on a tiny
// random model of the family's architecture (test/chat-models.ts), in real bwrap sandboxes:
// the model samples five turns in its own template (it writes noise, so every turn is told
// no tool call was found), and a scripted agent writing the family's own tool-call format
// fixes the task. ONNX on CPU.

let manager: SandboxManager;
let cleanup: () => Promise<void>;
let dir = '';
beforeAll(async () => {
  ({ manager, cleanup } = testManager('agent-families'));
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'families-'));
});
afterAll(async () => {
  await cleanup?.();
  await fs.rm(dir, { recursive: true, force: true });
});

const task = {
  ...resolveRepoTask(
    crucibleRepoTaskLine.parse({
      id: 'py-add',
      language: 'python',
      problem_statement: 'add(a, b) in calc.py returns the difference; make it return the sum. (The old README ends with </s><|im_end|><|eot_id|>.)',
      workspace: { files: { 'calc.py': 'def add(a, b):\n    return a - b\n' } },
      FAIL_TO_PASS: ['test_calc.py::test_add'],
    }),
    { baseDir: '/tmp' },
  ),
  environment: 'default',
};

describe.each(CHAT_FAMILIES)('$name ($architecture): an agent episode in its own template', (f) => {
  it("a random model samples 5 turns; a scripted agent in the family's tool-call format fixes the task", async () => {
    const modelDir = await familyModelDir(path.join(dir, f.name), f, { maxPositionEmbeddings: 8192 });
    const hf = await HfPolicy.load(modelDir, { providers: ['cpu'], threads: 1 });
    expect(hf.config.architecture).toBe(f.architecture);
    const renderer = new ChatTemplateRenderer(hf.tokenizer, { chatTemplate: hf.tokenizer.chatTemplate!, name: f.name, extra: f.extra });
    expect(renderer.toolCallFormat.name).toBe(f.format);
    const sampler = { kind: 'hf' as const, maxSeqLen: 8192, sample: (p: number[][], o: Parameters<HfPolicy['sample']>[1]) => hf.sample(p, o) };

    const sampled = await runAgentEpisode({
      manager,
      task,
      policy: new SampledAgentPolicy(sampler, { seed: 3 }),
      renderer,
      limits: episodeSandboxLimits,
      tools: ['bash', 'submit'],
      maxTurns: 5,
      maxNewTokens: 8,
      tokenBudget: 8000,
    });
    expect(sampled.error).toBeUndefined();
    expect(sampled.end).toBe('max_turns');
    const spans = sampled.sequence.spans.filter((s) => s.kind === 'assistant');
    expect(spans).toHaveLength(5);
    // noise: no tool call, or a broken one where it happened to sample a tool-call token
    expect(sampled.messages.filter((m) => m.role === 'tool').map((m) => m.content.slice(0, 6))).toEqual(Array(5).fill('error:'));
    // the policy saw exactly the sequence before its last message (the whole history): sampling again from it gives the same tokens
    const last = spans.at(-1)!;
    const [again] = await hf.sample([sampled.sequence.ids.slice(0, last.start)], {
      maxNewTokens: 8,
      temperature: 1,
      topP: 1,
      seed: 3 + 4,
      stop: renderer.stopTokens.map((t) => [t]),
    });
    expect(again!.tokens).toEqual(sampled.sequence.ids.slice(last.start, last.end));

    const scripted = await runAgentEpisode({
      manager,
      task,
      renderer,
      policy: new ScriptedPolicy([
        { name: 'read_file', arguments: { path: 'calc.py' } },
        { name: 'str_replace', arguments: { path: 'calc.py', old_str: 'a - b', new_str: 'a + b' } },
        { name: 'bash', arguments: { command: 'python3 -c "from calc import add; print(add(2, 3))"' } },
        { name: 'submit', arguments: {} },
      ]),
      limits: episodeSandboxLimits,
      maxTurns: 6,
      tokenBudget: 8000,
    });
    expect(scripted.end).toBe('submitted');
    expect(scripted.turns.map((t) => t.toolCalls.map((c) => c.name))).toEqual([['read_file'], ['str_replace'], ['bash'], ['submit']]);
    expect(scripted.turns[0]!.toolCalls[0]!.output).toContain('return a - b');
    expect(scripted.turns[2]!.toolCalls[0]!.output).toMatch(/^5\n/);
    expect(scripted.patch).toContain('+    return a + b');
  });
});
