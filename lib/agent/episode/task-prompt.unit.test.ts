import { describe, expect, it } from 'vitest';
import { agentTaskPrompt, LAYOUT_LINE_CHARS, taskTestCommand, workspaceLayout } from './task-prompt';

const task = {
  problemStatement: 'add() subtracts; make it add.\n',
  language: 'python' as const,
  testCommand: 'python3 -m pytest -q tests/test_calc.py',
  workspace: { 'README.md': '# calc\n', 'calc/__init__.py': '', 'calc/ops.py': 'x', 'calc/sub/a.py': 'a', 'calc/sub/b.py': 'b', 'tests/test_calc.py': 't' },
};

describe('the agent task prompt', () => {
  it('holds the problem statement, the layout, git and the task’s own test command', () => {
    expect(agentTaskPrompt(task)).toBe(
      [
        'add() subtracts; make it add.',
        '',
        'The repository is the current directory, a git checkout of its base commit (git diff shows your changes):',
        'README.md',
        'calc/: __init__.py ops.py sub/ (2 files)',
        'tests/: test_calc.py',
        'Run the tests with: python3 -m pytest -q tests/test_calc.py',
      ].join('\n'),
    );
  });

  it('falls back to the language’s usual command when the task records none', () => {
    expect(taskTestCommand({ language: 'python', testCommand: null })).toBe('python3 -m pytest -q');
    expect(taskTestCommand({ language: 'javascript', testCommand: '  ' })).toBe('node --test');
    expect(agentTaskPrompt({ ...task, language: 'javascript', testCommand: null })).toMatch(/\nRun the tests with: node --test$/);
  });

  it('stays bounded on a large repository', () => {
    const paths = Array.from({ length: 6000 }, (_, i) => `d${String(i % 100).padStart(3, '0')}/f${i}.py`);
    const layout = workspaceLayout(paths);
    expect(layout).toHaveLength(40);
    expect(layout.at(-1)).toBe('… 61 more directories');
    expect(Math.max(...layout.map((l) => l.length))).toBeLessThanOrEqual(LAYOUT_LINE_CHARS + 20);
    expect(layout[0]).toMatch(/^d000\/: f0\.py f100\.py .* … \(\d+ more\)$/);
  });
});
