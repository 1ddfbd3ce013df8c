import type { RepoGrade, RepoTask } from '@/core/repo-tasks';

/**
 * The grade of an episode whose workspace the agent left unreadable (WorkspaceUnreadableError):
 * no patch can be taken, so no test is run; reward 0 with every expected test "missing" and
 * the reason. Graded, not an infrastructure failure: masking it would spare the agent its 0.
 */
export function unreadableWorkspaceGrade(task: RepoTask, reason: string, env: { runtime: string; envHash: string }): RepoGrade {
  const detail = `not run: the agent left the workspace unreadable (${reason})`;
  return {
    status: 'graded',
    reward: 0,
    components: { f2p: 0, p2p: 0, patch_applied: 0, workspace_unreadable: 1 },
    tests: [...task.failToPass, ...task.passToPass].map((name) => ({ name, passed: false, outcome: 'missing', detail })),
    patchApplied: false,
    rejectedPaths: [],
    runtime: env.runtime,
    envHash: env.envHash,
    workspaceSha256: task.workspaceSha256,
    durationMs: 0,
    error: `the workspace could not be read back: ${reason}`,
  };
}
