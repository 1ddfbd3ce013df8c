import { kindOfTests } from '@/core/task-kinds';
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { repoTasks, repoWorkspaces, tasks, taskSuites } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import { environmentNameProblem } from '@/core/environments';
import type { TaskFileFormat, TaskSplit } from '@/core/tasks';
import { DomainError } from '@/server/errors';
import { BUILTIN_SUITE, builtinSuite } from './builtin';
import { STORIES_SUITE, storiesSuite } from './stories';
import { parseTaskFile, type LineError, type ParsedTask } from './formats';
import { parseRepoTaskFile, type ParsedRepoTask } from './repo-formats';
import { resolveMirrors, type MirrorSource } from './repo-mirrors';
import { REPO_SUITE, REPO_SUITE_DESCRIPTION, repoSuiteTasks } from './repo-suite-bundled';
import type { ImportPathPolicy } from '@/server/paths/import-path-policy';
import type { WorkspaceCaps } from '@/lib/agent/workspace/workspace-source';

export class TaskImportError extends DomainError {
  constructor(readonly errors: LineError[]) {
    super(
      'BAD_REQUEST',
      `${errors.length} bad line(s); nothing was imported:\n${errors
        .slice(0, 50)
        .map((e) => `  line ${e.line}: ${e.message}`)
        .join('\n')}${errors.length > 50 ? `\n  … and ${errors.length - 50} more` : ''}`,
    );
  }
}

/** Insert (or replace) a suite's tasks in one transaction: all or nothing. */
export async function saveSuite(
  db: DbOrTx,
  suite: { name: string; description?: string; source: string },
  parsed: (ParsedTask | ParsedRepoTask)[],
  actor: string,
  opts: { replace?: boolean } = {},
) {
  // every caller's tasks, not only parsed files: an environment name ends up as a path in the env store
  const badEnv = parsed.map((t) => t.environmentName !== null && environmentNameProblem(t.environmentName)).find(Boolean);
  if (badEnv) throw new DomainError('BAD_REQUEST', badEnv);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(taskSuites).where(eq(taskSuites.name, suite.name));
    if (existing && !opts.replace) {
      const [{ n } = { n: 0 }] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(tasks)
        .where(eq(tasks.suiteId, existing.id));
      if (n > 0)
        throw new DomainError('CONFLICT', `suite "${suite.name}" already has ${n} tasks; pass --replace to replace them or choose another --suite name`);
    }
    const [row] = existing
      ? await tx
          .update(taskSuites)
          .set({ description: suite.description ?? existing.description, source: suite.source })
          .where(eq(taskSuites.id, existing.id))
          .returning()
      : await tx
          .insert(taskSuites)
          .values({ name: suite.name, description: suite.description ?? null, source: suite.source })
          .returning();
    if (existing) await tx.delete(tasks).where(eq(tasks.suiteId, row!.id));
    for (let i = 0; i < parsed.length; i += 500) {
      const batch = parsed.slice(i, i + 500);
      const ids = await tx
        .insert(tasks)
        .values(batch.map((t) => ({ ...taskRow(t), suiteId: row!.id })))
        .returning({ id: tasks.id });
      await saveRepoDetails(tx, batch, ids);
    }
    await appendAudit(tx, {
      actor,
      action: 'tasks.import',
      targetType: 'task_suite',
      targetId: row!.id,
      details: { name: suite.name, tasks: parsed.length, source: suite.source },
    });
    return { suite: row!, imported: parsed.length };
  });
}

/** The tasks row of a parsed task (repository tasks keep the rest in repo_tasks). */
function taskRow(t: ParsedTask | ParsedRepoTask) {
  if (!('repo' in t)) return { ...t, kind: kindOfTests(t.tests) };
  const { repo: _repo, ...row } = t;
  return { ...row, kind: 'repo' as const };
}

/** Repository details for the repository tasks of one inserted batch; workspaces stored once per hash. */
async function saveRepoDetails(tx: DbOrTx, batch: (ParsedTask | ParsedRepoTask)[], ids: { id: string }[]) {
  const repos = batch.flatMap((t, j) => ('repo' in t ? [{ taskId: ids[j]!.id, repo: t.repo }] : []));
  if (repos.length === 0) return;
  const workspaces = new Map(repos.map(({ repo }) => [repo.workspaceSha256, repo.workspace]));
  for (const [sha256, files] of workspaces) {
    const totalBytes = Object.values(files).reduce((n, f) => n + (typeof f === 'string' ? Buffer.byteLength(f) : Math.floor((f.base64.length * 3) / 4)), 0);
    await tx
      .insert(repoWorkspaces)
      .values({ sha256, files, fileCount: Object.keys(files).length, totalBytes })
      .onConflictDoNothing();
  }
  await tx.insert(repoTasks).values(
    repos.map(({ taskId, repo }) => ({
      taskId,
      workspaceSha256: repo.workspaceSha256,
      hiddenTests: repo.hiddenTests,
      setup: repo.setup,
      testCommand: repo.testCommand,
      failToPass: repo.failToPass,
      passToPass: repo.passToPass,
      goldPatch: repo.goldPatch,
      difficulty: repo.difficulty,
    })),
  );
}

export async function importTasks(
  db: Db,
  input: { text: string; format: TaskFileFormat; suite: string; replace?: boolean; source?: string; baseDir?: string },
  actor: string,
  /**
   * paths: which server directories repository lines may read, the router passes the caller's (unset: the task file's directory only);
   * caps: workspace size caps; mirrors: where SWE-bench lines naming `repo` are read from (`--repos`, CRUCIBLE_REPO_MIRRORS; unset: such lines are refused)
   */
  opts: { paths?: ImportPathPolicy; caps?: WorkspaceCaps; mirrors?: MirrorSource } = {},
) {
  const baseDir = input.baseDir ?? process.cwd();
  // each repository a file names is resolved (a URL cloned) once, not per line: SWE-bench's 2,294 lines are 12 repositories
  const mirrors = input.format === 'swebench' && opts.mirrors ? await resolveMirrors(input.text, opts.mirrors) : null;
  const { tasks: parsed, errors } =
    input.format === 'crucible-repo' || input.format === 'swebench'
      ? parseRepoTaskFile(input.text, input.format, baseDir, opts.paths ?? { roots: [baseDir], via: 'cli', of: 'tasks' }, opts.caps, mirrors)
      : parseTaskFile(input.text, input.format);
  if (errors.length) throw new TaskImportError(errors);
  const saved = await saveSuite(db, { name: input.suite, source: input.source ?? `import:${input.format}` }, parsed, actor, { replace: input.replace });
  // symbolic links left out of git workspaces, per task, so the operator sees what the agent will not
  const skippedLinks = (parsed as (ParsedTask | ParsedRepoTask)[]).flatMap((t) =>
    'repo' in t && t.repo.skippedLinks.length ? [{ task: t.externalId, paths: t.repo.skippedLinks }] : [],
  );
  return { ...saved, skippedLinks };
}

export async function listSuiteTasks(db: Db, suiteName: string, split?: TaskSplit) {
  if (isBundledSuite(suiteName)) await ensureBundledSuite(db, suiteName);
  const [suite] = await db.select().from(taskSuites).where(eq(taskSuites.name, suiteName));
  if (!suite) throw new DomainError('NOT_FOUND', `no task suite "${suiteName}"`);
  const rows = await db.select().from(tasks).where(eq(tasks.suiteId, suite.id)).orderBy(asc(tasks.externalId));
  return split ? rows.filter((t) => t.split === split) : rows;
}

/** Suites that ship with Crucible, created on first use: their tasks are generated, the same every time. */
const BUNDLED_SUITES: Record<string, { description: string; tasks: () => (ParsedTask | ParsedRepoTask)[] }> = {
  [BUILTIN_SUITE]: {
    description: 'Built-in Python/JavaScript string, list and arithmetic functions (train + held-out splits, with demonstrations)',
    tasks: builtinSuite,
  },
  [STORIES_SUITE]: {
    description:
      "Story openings to continue (text tasks for a pretrained story model such as stories260K): mention the prompt's child and thing, end the paragraph on a full sentence, at least 6 words; held-out names and things are not in train",
    tasks: storiesSuite,
  },
  [REPO_SUITE]: { description: REPO_SUITE_DESCRIPTION, tasks: repoSuiteTasks },
};

/** Whether `name` is a suite Crucible creates on first use. */
export const isBundledSuite = (name: string) => Object.hasOwn(BUNDLED_SUITES, name);

/** Create a bundled suite (builtin, stories, repo-suite) if it is missing (first start, first run). */
export async function ensureBundledSuite(db: DbOrTx, name: string) {
  const [existing] = await db.select().from(taskSuites).where(eq(taskSuites.name, name));
  if (existing) return existing;
  const bundled = BUNDLED_SUITES[name];
  if (!bundled) throw new Error(`${name} is not a bundled suite`);
  try {
    const { suite } = await saveSuite(db, { name, source: 'builtin', description: bundled.description }, bundled.tasks(), 'system:bootstrap');
    return suite;
  } catch (e) {
    // A concurrent first start created it (unique name); use theirs.
    const [created] = await db.select().from(taskSuites).where(eq(taskSuites.name, name));
    if (created) return created;
    throw e;
  }
}

/** Create the built-in suite if it is missing (first start, first run). */
export const ensureBuiltinSuite = (db: DbOrTx) => ensureBundledSuite(db, BUILTIN_SUITE);
