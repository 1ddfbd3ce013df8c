import { REPO_DEFAULT_ENVIRONMENT, type CrucibleRepoTaskLine, type RepoTask, type WorkspaceFiles } from '@/core/repo-tasks';
import { applyWorkspacePatch } from './workspace-diff';
import { fileBytes, fileExecutable, WorkspaceError } from './workspace-file';
import { workspaceSha256 } from './workspace-hash';
import { DEFAULT_WORKSPACE_CAPS, materializeWorkspace, type WorkspaceCaps } from './workspace-source';

/**
 * A task line made runnable: the workspace read in and hashed, the hidden tests as files
 * (a test_patch is applied to a scratch copy of the workspace, and every file it adds or
 * changes becomes a hidden test file; inline hidden_tests win over it), and the defaults.
 */
export function resolveRepoTask(line: CrucibleRepoTaskLine, opts: { baseDir: string; caps?: WorkspaceCaps; skippedLinks?: string[] }): RepoTask {
  const workspace = materializeWorkspace(line.workspace, opts.baseDir, opts.caps ?? DEFAULT_WORKSPACE_CAPS, opts.skippedLinks);
  const hiddenTests: WorkspaceFiles = {};
  if (line.test_patch) {
    let patched: WorkspaceFiles;
    try {
      patched = applyWorkspacePatch(workspace, line.test_patch);
    } catch (e) {
      throw new WorkspaceError(`task ${line.id}: test_patch does not apply to the workspace: ${(e as Error).message}`);
    }
    for (const [p, f] of Object.entries(patched)) {
      const was = workspace[p];
      if (was === undefined || fileExecutable(was) !== fileExecutable(f) || !fileBytes(was).equals(fileBytes(f))) hiddenTests[p] = f;
    }
    const removed = Object.keys(workspace).filter((p) => patched[p] === undefined);
    if (removed.length)
      throw new WorkspaceError(`task ${line.id}: test_patch deletes ${removed.join(', ')}; hidden tests can add or replace files, not remove them`);
  }
  Object.assign(hiddenTests, line.hidden_tests);
  return {
    id: line.id,
    language: line.language,
    problemStatement: line.problem_statement,
    workspace,
    workspaceSha256: workspaceSha256(workspace),
    hiddenTests,
    setup: line.setup ?? null,
    testCommand: line.test_command ?? null,
    failToPass: line.FAIL_TO_PASS,
    passToPass: line.PASS_TO_PASS,
    goldPatch: line.gold_patch ?? null,
    environment: line.env ?? REPO_DEFAULT_ENVIRONMENT,
  };
}
