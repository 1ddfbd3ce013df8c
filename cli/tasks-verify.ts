import { runsAgentEpisodes } from '@/core/task-kinds';
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { RepoGrade, RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { dataDir, envStoreDir } from '@/db/open-database';
import { tasks, taskSuites } from '@/db/schema';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { builtInEnvSpec, ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { SandboxError } from '@/lib/sandbox/types';
import { CliError, output, type Command } from './args';
import { cliDatabase } from './database';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * `crucible tasks verify`: an imported repository suite checked through the real grader, the
 * way lib/agent/suite/gold.test.ts checks the built-in one. A task is sound when its gold
 * patch scores 1 and the untouched workspace fails every FAIL_TO_PASS test while passing every
 * PASS_TO_PASS one; anything else (a wrong test id, a test that needs a package the environment
 * lacks, a gold patch that does not fix the bug) would train on noise, so it is named here.
 */

const USAGE =
  'crucible tasks verify --suite NAME [--only ID,...] [--runtime bwrap|NAME] [--json]\n' +
  '  grades each repository task twice in sandboxes: its gold patch (must score 1) and the untouched workspace\n' +
  '  (every FAIL_TO_PASS test must fail, every PASS_TO_PASS test pass); exit 1 if any task fails';

const onlyList = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()))
  .pipe(z.array(z.string().min(1, 'empty task id in --only')).min(1));

export type TaskVerdict = {
  id: string;
  ok: boolean;
  /** why the task failed, one line each, naming the tests */
  problems: string[];
  gold: { status: RepoGrade['status'] | 'skipped'; reward: number | null; failing: string[] };
  untouched: { status: RepoGrade['status']; reward: number | null; failToPassPassing: string[]; passToPassFailing: string[] };
};

const describeTest = (g: RepoGrade, name: string) => {
  const t = g.tests.find((x) => x.name === name);
  return `${name} (${t ? t.outcome : 'missing'})`;
};

/** Grade one task's gold patch and its untouched workspace; the verdict says what is wrong, by test. */
export async function verifyTask(manager: SandboxManager, task: RepoTask, runtime: string): Promise<TaskVerdict> {
  const opts = { runtime, limits: episodeSandboxLimits };
  const problems: string[] = [];
  let gold: TaskVerdict['gold'] = { status: 'skipped', reward: null, failing: [] };
  if (!task.goldPatch) problems.push('no gold patch to check');
  else {
    const g = await gradeRepoTask(manager, task, task.goldPatch, opts);
    const expected = [...task.failToPass, ...task.passToPass];
    const failing = expected.filter((id) => !g.tests.find((t) => t.name === id)?.passed).map((id) => describeTest(g, id));
    gold = { status: g.status, reward: g.reward, failing };
    if (g.status === 'infra_error') problems.push(`gold patch: the grader could not run (${g.error ?? 'infra error'})`);
    else if (!g.patchApplied) problems.push(`gold patch does not apply${g.error ? `: ${g.error}` : ''}`);
    else if (g.reward !== 1)
      problems.push(
        `gold patch scores ${g.reward?.toFixed(3) ?? '—'}${failing.length ? `; failing: ${failing.join(', ')}` : ''}${g.error ? ` (${g.error})` : ''}`,
      );
  }
  const u = await gradeRepoTask(manager, task, '', opts);
  const failToPassPassing = task.failToPass.filter((id) => u.tests.find((t) => t.name === id)?.passed);
  const passToPassFailing = task.passToPass.filter((id) => !u.tests.find((t) => t.name === id)?.passed).map((id) => describeTest(u, id));
  if (u.status === 'infra_error') problems.push(`untouched workspace: the grader could not run (${u.error ?? 'infra error'})`);
  else {
    if (failToPassPassing.length) problems.push(`untouched workspace already passes FAIL_TO_PASS: ${failToPassPassing.join(', ')}`);
    if (passToPassFailing.length) problems.push(`untouched workspace fails PASS_TO_PASS: ${passToPassFailing.join(', ')}`);
  }
  return {
    id: task.id,
    ok: problems.length === 0,
    problems,
    gold,
    untouched: { status: u.status, reward: u.reward, failToPassPassing, passToPassFailing },
  };
}

export const commands: Command[] = [
  {
    name: 'tasks verify',
    summary: 'check an imported repository suite: each gold patch scores 1, each untouched workspace fails its FAIL_TO_PASS tests',
    usage: USAGE,
    options: { suite: { type: 'string' }, only: { type: 'string' }, runtime: { type: 'string' }, json: { type: 'boolean' } },
    run: async ({ values }) => {
      const suite = values.suite as string | undefined;
      if (!suite) throw new CliError(`missing --suite\nusage: ${USAGE}`);
      const only = values.only === undefined ? null : onlyList.safeParse(values.only);
      if (only && !only.success) throw new CliError(`--only: ${only.error.issues[0]!.message} (a comma-separated list of task ids)`);
      const runtime = sandboxRuntimeName.safeParse((values.runtime as string | undefined) ?? 'bwrap');
      if (!runtime.success) throw new CliError(`--runtime: ${runtime.error.issues[0]!.message}`);
      const { db } = await cliDatabase();
      const rows = await db
        .select({ id: tasks.id, kind: tasks.kind, externalId: tasks.externalId })
        .from(tasks)
        .innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId))
        .where(eq(taskSuites.name, suite))
        .orderBy(asc(tasks.externalId));
      if (!rows.length)
        throw new CliError(
          `no task suite "${suite}" in the database (or it is empty); import it with \`crucible tasks import FILE --format crucible-repo|swebench --suite ${suite}\``,
        );
      const repoRows = rows.filter((r) => runsAgentEpisodes(r.kind));
      if (!repoRows.length) throw new CliError(`suite "${suite}" holds no repository tasks; \`tasks verify\` checks repository suites`);
      let chosen = repoRows;
      if (only?.success) {
        const unknown = only.data.filter((id) => !repoRows.some((r) => r.externalId === id));
        if (unknown.length) throw new CliError(`--only: no repository task ${unknown.map((u) => `"${u}"`).join(', ')} in suite "${suite}"`);
        chosen = repoRows.filter((r) => only.data.includes(r.externalId));
      }
      const manager = new SandboxManager({ dataDir: dataDir(), storeDir: envStoreDir(), runtime: runtimeOptions(settings()) });
      const verdicts: TaskVerdict[] = [];
      try {
        const envs = new Set<string>();
        for (const row of chosen) {
          const task = await loadStoredRepoTask(db, row.id);
          if (!envs.has(task.environment)) {
            try {
              if (builtInEnvSpec(task.environment)) ensureBuiltInEnvironment(task.environment, manager.storeDir);
              manager.runtime(runtime.data); // refuses a missing runtime with what to install
              await manager.environmentFor(task.environment);
            } catch (e) {
              if (e instanceof SandboxError) throw new CliError(e.message, e.kind === 'missing_runtime' ? 3 : 2);
              throw e;
            }
            envs.add(task.environment);
          }
          const v = await verifyTask(manager, task, runtime.data);
          verdicts.push(v);
          // one line per task as it finishes: a suite of hundreds takes a while
          if (!values.json) output(false, null, () => `${v.ok ? 'pass' : 'FAIL'}  ${v.id}${v.problems.map((p) => `\n      ${p}`).join('')}`);
        }
      } finally {
        await manager.close();
      }
      const failed = verdicts.filter((v) => !v.ok).length;
      output(!!values.json, { suite, tasks: verdicts.length, failed, verdicts }, () =>
        failed ? `${failed} of ${verdicts.length} task(s) failed` : `all ${verdicts.length} task(s) pass`,
      );
      return failed ? 1 : 0;
    },
  },
];
