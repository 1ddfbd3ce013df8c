import type { RepoGrade, RepoTask } from '@/core/repo-tasks';
import type { LimitsInput } from '@/lib/sandbox/types';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { RerunSummary } from './diagnose';

/**
 * A repository episode's re-run for a diagnosis: its graded patch (episodes.grading.patch, the
 * diff the reward was computed from) graded again exactly as the episode was (a new clean
 * sandbox, pristine workspace, test files restored, hidden tests added, the run's runtime and
 * limits) in environment `envName`, as a RerunSummary with every test by name.
 */
export async function regradeRepoPatch(
  manager: SandboxManager,
  task: RepoTask,
  patch: string,
  o: { label: string; envName: string; runtime: string; limits?: LimitsInput; context: { runId: string; episodeId: string } },
): Promise<RerunSummary> {
  const g = await gradeRepoTask(manager, { ...task, environment: o.envName }, patch, { runtime: o.runtime, limits: o.limits, context: o.context });
  return repoRerunSummary(o.label, g);
}

export function repoRerunSummary(label: string, g: RepoGrade): RerunSummary {
  return {
    label,
    status: g.status === 'graded' ? 'scored' : 'infra_error',
    reward: g.reward,
    components: g.components,
    envHash: g.envHash || null,
    runtime: g.runtime || null,
    tests: g.tests.map((t, index) => ({ index, passed: t.passed, detail: `${t.name} (${t.outcome})${t.detail ? `: ${t.detail}` : ''}` })),
    ...(g.error ? { note: `the grader could not run the tests: ${g.error}` } : {}),
  };
}
