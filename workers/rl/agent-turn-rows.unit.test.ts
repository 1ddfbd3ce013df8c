import { describe, expect, it } from 'vitest';
import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import { toolSchemas } from '@/lib/agent/tools/tool-definitions';
import { agentTurnRows, OBSERVATION_CHARS } from './agent-turn-rows';

// A conversation rendered by the byte template as an episode builds it: prompt, then per turn the
// sampled message and the tool messages that follow it.
function conversation() {
  const r = new ByteTemplateRenderer();
  const c = r.begin({ system: 'sys', user: 'fix it', tools: toolSchemas(['bash', 'submit']) });
  const m1 = r.assistantTokens('<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>');
  c.appendAssistant(
    m1,
    m1.map(() => -0.25),
  );
  c.appendTools([{ name: 'bash', content: 'a.py\n[exit code 0]' }]);
  const m2 = r.assistantTokens('no call \u0000 here');
  c.appendAssistant(
    m2,
    m2.map(() => -0.5),
  );
  c.appendTools([{ name: 'error', content: 'x'.repeat(OBSERVATION_CHARS + 10) }]);
  const turns = [
    {
      assistant: 'call ls',
      tokens: m1.length,
      toolCalls: [{ name: 'bash', arguments: { command: 'ls\u0000' }, output: 'a.py\n[exit code 0]', durationMs: 12.6 }],
      diffSoFar: '',
    },
    { assistant: 'no call \u0000 here', tokens: m2.length, toolCalls: [] },
  ];
  return { r, c, turns, m1, m2 };
}

describe('agentTurnRows: one row per agent turn, concatenating to the episode’s sequence', () => {
  it('row 0 holds the prompt, every row its message (mask 1) then its tool messages (mask 0); the rows concatenate exactly', () => {
    const { c, turns, m1, m2 } = conversation();
    const rows = agentTurnRows({ sequence: c.sequence, turns, messages: c.messages }, [100.4, 50]);
    expect(rows.map((x) => x.index)).toEqual([0, 1]);
    expect(rows.flatMap((x) => x.tokenIds)).toEqual(c.sequence.ids);
    expect(rows.flatMap((x) => x.lossMask)).toEqual(c.sequence.lossMask);
    expect(rows.flatMap((x) => x.logprobs)).toEqual(c.sequence.logprobs.map((l) => l ?? 0));
    const prompt = c.sequence.spans[0]!.end;
    expect(rows[0]!.lossMask.slice(0, prompt).every((m) => m === 0)).toBe(true);
    expect(rows[0]!.tokenIds.slice(prompt, prompt + m1.length)).toEqual(m1);
    expect(rows[0]!.lossMask.slice(prompt, prompt + m1.length).every((m) => m === 1)).toBe(true);
    expect(rows[0]!.lossMask.slice(prompt + m1.length).every((m) => m === 0)).toBe(true);
    expect(rows[1]!.tokenIds.slice(0, m2.length)).toEqual(m2);
    expect(rows[1]!.lossMask.slice(0, m2.length).every((m) => m === 1)).toBe(true);
  });

  it('keeps tool calls, capped tool messages, diffs and timings, without NUL (Postgres text and jsonb refuse it)', () => {
    const { c, turns } = conversation();
    const [a, b] = agentTurnRows({ sequence: c.sequence, turns, messages: c.messages }, [100.4, 50]);
    expect(a).toMatchObject({
      observation: '[bash]\na.py\n[exit code 0]',
      toolCalls: [{ name: 'bash', arguments: { command: 'ls\uFFFD' }, durationMs: 13 }],
      workspaceDiff: '',
      policyMs: 100,
      sandboxMs: 13,
    });
    expect(b!.action).toBe('no call \uFFFD here');
    expect(b!.workspaceDiff).toBeNull();
    expect(b!.observation).toMatch(/^\[error\]\nx+\n\[observation cut: \d+ more characters\]$/);
  });

  it('refuses turns that do not match the sequence’s assistant messages one to one', () => {
    const { c, turns } = conversation();
    expect(() => agentTurnRows({ sequence: c.sequence, turns: turns.slice(0, 1), messages: c.messages })).toThrow(/1 turns but 2 assistant messages/);
  });
});
