import type { AgentToolName, RepoTask } from '@/core/repo-tasks';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import type { LimitsInput } from '@/lib/sandbox/types';
import type { ParsedToolCall } from '../tools/call-formats/call-format';
import { defaultToolLimits, executeToolCall, type ToolCallRecord, type ToolLimits } from '../tools/execute-tool';
import { diffWorkspaces } from '../workspace/workspace-diff';
import { EPISODE_TS_HOOKS_DIR, hasTypeScript, TS_HOOK_FILES } from '../grade/typescript-hooks';
import { readWorkspace, SANDBOX_WORKSPACE_DIR, writeWorkspace } from './sandbox-workspace';
import { initWorkspaceGit } from './workspace-git';

export type AgentWorkspaceOptions = {
  manager: SandboxManager;
  task: RepoTask;
  /** sandbox runtime (default bwrap) and environment (default the task's) */
  runtime?: string;
  env?: string;
  limits?: LimitsInput;
  toolLimits?: Partial<ToolLimits>;
  /** the tools offered (default: the default five); calls to others are error observations */
  tools?: readonly AgentToolName[];
};

/** The task's setup failed, or its workspace could not be written: the infrastructure's (or the task's) fault, never the agent's. */
export class WorkspaceSetupError extends Error {}

/**
 * One task's workspace in one sandbox, for as long as an agent acts on it: written in once,
 * then every tool call runs against it (with the edit history undo_edit needs), and it is
 * read back and diffed against the pristine workspace when asked. Crucible's own episode loop
 * (run-episode.ts) and the step API's sessions (workers/environments) both drive one.
 */
export class AgentWorkspace {
  readonly dir = SANDBOX_WORKSPACE_DIR;
  private readonly edits = new Map<string, (string | null)[]>();
  private readonly toolLimits: ToolLimits;
  private toolEnv: Record<string, string> | undefined;
  private released = false;

  private constructor(
    private readonly o: AgentWorkspaceOptions,
    readonly sandbox: Sandbox,
  ) {
    this.toolLimits = { ...defaultToolLimits, ...o.toolLimits };
  }

  /** A sandbox for the task (its environment's hash checked by the manager). Throws when none can be started. */
  static async acquire(o: AgentWorkspaceOptions): Promise<AgentWorkspace> {
    const sb = await o.manager.acquire({ runtime: o.runtime, env: o.env ?? o.task.environment, limits: o.limits });
    return new AgentWorkspace(o, sb);
  }

  /** Write the workspace in (with a one-commit `.git`: workspace-git.ts), give node the TypeScript hooks where the task needs them, run the task's setup. */
  async prepare(setupTimeoutMs = 300_000): Promise<void> {
    const { task } = this.o;
    await writeWorkspace(this.sandbox, task.workspace, this.dir);
    // a `.git` with the base commit only, before setup: git status/diff show the agent's changes as the grader's patch does
    await initWorkspaceGit(this.sandbox, this.dir);
    // node cannot load TypeScript on its own (Node 20): the agent's node gets the grader's hooks
    if (task.language === 'javascript' && hasTypeScript(task.workspace)) {
      for (const [name, bytes] of Object.entries(TS_HOOK_FILES)) this.sandbox.putFile(`${EPISODE_TS_HOOKS_DIR}/${name}`, bytes, 0o444);
      this.toolEnv = { NODE_OPTIONS: `--import=${EPISODE_TS_HOOKS_DIR}/ts-register.mjs` };
    }
    if (task.setup) {
      const r = await this.sandbox.exec(['sh', '-c', task.setup], { cwd: this.dir, timeoutMs: setupTimeoutMs });
      if (r.status !== 'ok')
        throw new WorkspaceSetupError(
          `the task's setup failed (${r.status}${r.exitCode !== null ? `, exit ${r.exitCode}` : ''}): ${(r.error ?? r.stderr).trim().slice(-2000)}`,
        );
    }
  }

  /** Run one parsed call (never throws; a failure of the sandbox itself is the record's `infraError`). */
  call(call: ParsedToolCall, deadline?: number): Promise<ToolCallRecord> {
    return executeToolCall(
      { sandbox: this.sandbox, workspaceDir: this.dir, limits: this.toolLimits, deadline, tools: this.o.tools, env: this.toolEnv, edits: this.edits },
      call,
    );
  }

  /** The agent's changes so far as a unified diff against the pristine workspace. Throws WorkspaceUnreadableError when it left it unreadable. */
  async diff(): Promise<{ patch: string; binarySkipped: string[] }> {
    const d = diffWorkspaces(this.o.task.workspace, await readWorkspace(this.sandbox, this.dir));
    return { patch: d.patch, binarySkipped: d.binarySkipped };
  }

  /** Give the sandbox back (once; later calls do nothing). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.o.manager.release(this.sandbox);
  }
}
