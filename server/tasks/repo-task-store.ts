import { eq } from 'drizzle-orm';
import { environmentNameProblem } from '@/core/environments';
import { REPO_DEFAULT_ENVIRONMENT, workspaceFiles, type RepoTask } from '@/core/repo-tasks';
import { repoTasks, repoWorkspaces, tasks } from '@/db/schema';
import type { DbOrTx } from '@/server/audit/service';
import { DomainError } from '@/server/errors';

/** A stored repository task as the agent library runs it (core/repo-tasks RepoTask). */
export async function loadStoredRepoTask(db: DbOrTx, taskId: string): Promise<RepoTask> {
  const [row] = await db
    .select({ task: tasks, repo: repoTasks, files: repoWorkspaces.files })
    .from(tasks)
    .innerJoin(repoTasks, eq(repoTasks.taskId, tasks.id))
    .innerJoin(repoWorkspaces, eq(repoWorkspaces.sha256, repoTasks.workspaceSha256))
    .where(eq(tasks.id, taskId));
  if (!row) throw new DomainError('NOT_FOUND', `no repository task with id ${taskId}`);
  const { task, repo, files } = row;
  // names read back are checked as on import: the app role every worker holds can rewrite these rows
  for (const [what, w] of [
    ['workspace', files],
    ['hidden tests', repo.hiddenTests],
  ] as const) {
    const parsed = workspaceFiles.safeParse(w);
    if (!parsed.success)
      throw new DomainError(
        'PRECONDITION_FAILED',
        `repository task ${task.externalId}: its stored ${what} has an invalid file path (${parsed.error.issues[0]?.path.join('/')}: ${parsed.error.issues[0]?.message}); the row was edited outside Crucible, import the task again`,
      );
  }
  const envProblem = task.environmentName === null ? undefined : environmentNameProblem(task.environmentName);
  if (envProblem) throw new DomainError('PRECONDITION_FAILED', `repository task ${task.externalId}: its stored environment name is invalid (${envProblem})`);
  return {
    id: task.externalId,
    language: task.language,
    problemStatement: task.prompt,
    workspace: files,
    workspaceSha256: repo.workspaceSha256,
    hiddenTests: repo.hiddenTests,
    setup: repo.setup,
    testCommand: repo.testCommand,
    failToPass: repo.failToPass,
    passToPass: repo.passToPass,
    goldPatch: repo.goldPatch,
    environment: task.environmentName ?? REPO_DEFAULT_ENVIRONMENT,
  };
}
