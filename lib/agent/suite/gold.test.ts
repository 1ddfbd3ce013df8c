import { afterAll, describe, expect, it } from 'vitest';
import type { RepoTask } from '@/core/repo-tasks';
import { gradeTestManager } from '@/lib/agent/grade/grade-fixtures';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { resolveRepoTask } from '@/lib/agent/workspace/resolve-task';
import { loadRepoSuite } from './repo-suite';

// Every built-in task through the real grader in real sandboxes (the `repo` environment): the
// gold patch scores 1 and the untouched workspace scores 0 on FAIL_TO_PASS with PASS_TO_PASS
// intact. One manager for the file; tasks run one after another (2 cores).
const { manager, cleanup } = gradeTestManager('repo-suite-gold');
afterAll(cleanup);

const failing = (g: Awaited<ReturnType<typeof gradeRepoTask>>) => g.tests.filter((t) => !t.passed).map((t) => `${t.name}: ${t.outcome} ${t.detail ?? ''}`);

describe('built-in repository suite through the grader', () => {
  for (const line of loadRepoSuite()) {
    it(`${line.id}: gold patch → 1, untouched → 0 on FAIL_TO_PASS`, { timeout: 120_000 }, async () => {
      const task: RepoTask = resolveRepoTask(line, { baseDir: '/' });
      const gold = await gradeRepoTask(manager, task, task.goldPatch!);
      expect(gold.error ?? null, JSON.stringify(failing(gold))).toBeNull();
      expect(gold, JSON.stringify(failing(gold))).toMatchObject({ status: 'graded', reward: 1, patchApplied: true, rejectedPaths: [] });
      const untouched = await gradeRepoTask(manager, task, '');
      expect(untouched).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1 } });
      for (const id of task.failToPass) expect(untouched.tests.find((t) => t.name === id)?.passed, id).toBe(false);
    });
  }
});
