import { runsAgentEpisodes, taskKindLabel } from '@/core/task-kinds';
import { unreadableWorkspaceGrade } from '@/lib/agent/episode/unreadable-grade';
import fs from 'node:fs';
import path from 'node:path';
import { crucibleRepoTaskLine, type CrucibleRepoTaskLine, type RepoTask } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { dataDir, envStoreDir } from '@/db/open-database';
import { runAgentEpisode } from '@/lib/agent/episode/run-episode';
import { scriptStep, ScriptedPolicy, type ScriptStep } from '@/lib/agent/policies/scripted';
import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import { loadRepoSuite, REPO_SUITE_DIR } from '@/lib/agent/suite/repo-suite';
import { resolveRepoTask } from '@/lib/agent/workspace/resolve-task';
import { builtInEnvSpec, ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { SandboxError } from '@/lib/sandbox/types';
import { eq } from 'drizzle-orm';
import { tasks, taskSuites } from '@/db/schema';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { REPO_SUITE } from '@/server/tasks/repo-suite-bundled';
import { z } from 'zod';
import { describeIssues, DomainError } from '@/server/errors';
import { settings } from '@/core/settings';
import { CliError, output, type Command } from './args';
import { cliDatabase } from './database';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { createHash } from 'node:crypto';
import { nodeName } from '@/lib/scheduler/node';
import { actorOf } from '@/server/auth/identity';
import { localUser } from './api';
import { DEFAULT_EPISODE_RUN, episodeRunNamed, storeCliEpisode } from '@/server/episodes/store-cli-episode';
import { runNameSchema } from '@/server/runs/service';
import { ensureBundledSuite, importTasks } from '@/server/tasks/service';
import { playedRepoEpisode, repoEpisodeInfra } from '@/workers/rl/agent-episode';
import { agentTurnRows } from '@/workers/rl/agent-turn-rows';

const USAGE =
  'crucible episode run --task ID --script FILE.jsonl [--task-file FILE.jsonl | --suite repo-suite] [--runtime bwrap|NAME] [--env NAME] ' +
  '[--max-turns N] [--timeout-s N] [--token-budget N] [--max-new-tokens N] [--no-grade] [--store [--run NAME]] [--json]\n' +
  '  --script: one tool call a line, {"name": TOOL, "arguments": {...}} (arguments may be a JSON string) or {"text": MESSAGE} for a raw message\n' +
  '  --task-file: a crucible-repo JSONL file (workspace dirs relative to it); not with --suite\n' +
  '  --suite: repo-suite (the built-in files, the default) or a suite imported with `crucible tasks import --format crucible-repo|swebench`\n' +
  '  --max-turns (default 30, or the script length + 1), --timeout-s (600), --token-budget (32768: the whole sequence),\n' +
  '  --max-new-tokens (4096: one turn): positive integers\n' +
  "  --store: write the episode, its turns and its reward to the database (the console's episode page, the run's episode table,\n" +
  '  `crucible episodes export`) under the run --run NAME (default cli-episodes), created on first use: completed, marked\n' +
  "  origin \"episode-run\", nothing trained. The task is the database's row: --suite NAME's, repo-suite's (created on first use),\n" +
  "  or --task-file's line imported into a suite of its own (episode-run/ID@HASH). Not with --no-grade";

/** A numeric flag: a positive integer, or a usage error naming the flag and what it got. */
const positiveFlag = z.coerce
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .positive('must be at least 1')
  .max(Number.MAX_SAFE_INTEGER, 'is too large');
function positiveOption(values: Record<string, unknown>, name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const r = positiveFlag.safeParse(String(v).trim() === '' ? Number.NaN : v);
  if (!r.success) throw new CliError(`--${name} ${r.error.issues[0]!.message}, got "${String(v)}"\nusage: ${USAGE}`);
  return r.data;
}

/**
 * A script line: a step as the scripted policy takes it, with `arguments` also accepted as a
 * JSON string (OpenAI's wire format, as in `<tool_call>` text). A bad line says why, by field.
 */
const scriptLine = z.preprocess((v) => {
  if (v && typeof v === 'object' && typeof (v as { arguments?: unknown }).arguments === 'string') {
    try {
      return { ...v, arguments: JSON.parse((v as { arguments: string }).arguments) as unknown };
    } catch {
      return v; // left a string: the schema names the field
    }
  }
  return v;
}, scriptStep);

export function parseScriptFile(text: string): { steps: ScriptStep[]; errors: { line: number; message: string }[] } {
  const steps: ScriptStep[] = [];
  const errors: { line: number; message: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return void errors.push({ line: i + 1, message: `not valid JSON (${(e as Error).message})` });
    }
    const r = scriptLine.safeParse(value);
    if (r.success) steps.push(r.data);
    else
      errors.push({
        line: i + 1,
        message: `expected {"name": TOOL, "arguments": {...}} or {"text": MESSAGE}: ${describeIssues(explainUnion(r.error.issues))}`,
      });
  });
  return { steps, errors };
}

type Issue = z.core.$ZodIssue;
/** A failed union (tool call or text) explained by the alternative the line meant: a `name` means a tool call. */
function explainUnion(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((i) => {
    if (i.code !== 'invalid_union' || !i.errors.length) return [i];
    const best = [...i.errors].sort((a, b) => a.length - b.length)[0]!;
    return best.map((x) => ({ ...x, path: [...i.path, ...x.path] }));
  });
}

/** A repository task imported into the database, by suite name and task id, with its tasks row id. */
async function storedTask(suite: string, id: string): Promise<{ task: RepoTask; taskId: string }> {
  const { db } = await cliDatabase();
  const rows = await db
    .select({ id: tasks.id, kind: tasks.kind, externalId: tasks.externalId })
    .from(tasks)
    .innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId))
    .where(eq(taskSuites.name, suite));
  if (!rows.length)
    throw new CliError(
      `no task suite "${suite}" in the database; import it with \`crucible tasks import FILE --format crucible-repo|swebench --suite ${suite}\``,
    );
  const row = rows.find((r) => r.externalId === id);
  if (!row)
    throw new CliError(
      `no task "${id}" in suite "${suite}"; it has: ${rows
        .slice(0, 10)
        .map((r) => r.externalId)
        .join(', ')}${rows.length > 10 ? ', …' : ''}`,
    );
  if (!runsAgentEpisodes(row.kind))
    throw new CliError(
      `task "${id}" of suite "${suite}" is ${taskKindLabel(row.kind) === 'input/output' ? 'an' : 'a'} ${taskKindLabel(row.kind)} task, not a repository task; episodes run repository tasks`,
    );
  return { task: await loadStoredRepoTask(db, row.id), taskId: row.id };
}

/**
 * --store: what the stored episode's task row is. A suite in the database gives its row; the
 * built-in suite is created in the database on first use (as a run on it would); a --task-file
 * line is imported, through the service `crucible tasks import --format crucible-repo` uses,
 * into a suite of its own named by the task and a hash of its line and workspace, so the same
 * task stored again finds its row and an edited one gets a new suite. The episode then plays
 * that row's task, so what is stored is what ran.
 */
async function storeTask(values: Record<string, unknown>): Promise<{ task: RepoTask; taskId: string }> {
  const suite = values.suite as string | undefined;
  if (!values['task-file']) {
    if (!suite || suite === REPO_SUITE) await ensureBundledSuite((await cliDatabase()).db, REPO_SUITE);
    return storedTask(suite ?? REPO_SUITE, values.task as string);
  }
  const { line, raw, baseDir } = findTask(values);
  const file = values['task-file'] as string;
  let resolved: RepoTask;
  try {
    resolved = resolveRepoTask(line, { baseDir, caps: workspaceCaps() });
  } catch (e) {
    throw new CliError(`task ${line.id}: ${(e as Error).message}`);
  }
  const hash = createHash('sha256').update(raw).update('\0').update(resolved.workspaceSha256).digest('hex').slice(0, 12);
  const name = `episode-run/${line.id}@${hash}`;
  const { db } = await cliDatabase();
  const [existing] = await db.select({ id: taskSuites.id }).from(taskSuites).where(eq(taskSuites.name, name));
  if (!existing) {
    try {
      await importTasks(db, { text: raw, format: 'crucible-repo', suite: name, baseDir, source: `episode-run:${path.resolve(file)}` }, actorOf(localUser()), {
        caps: workspaceCaps(),
      });
    } catch (e) {
      // another command stored the same task at the same time: its suite is as good as ours
      const [raced] = await db.select({ id: taskSuites.id }).from(taskSuites).where(eq(taskSuites.name, name));
      if (!raced) throw e instanceof DomainError ? new CliError(`task ${line.id}: ${e.message}`) : e;
    }
  }
  return storedTask(name, line.id);
}

const workspaceCaps = () => {
  const s = settings();
  return { maxFiles: s.CRUCIBLE_WORKSPACE_MAX_FILES, maxBytes: s.CRUCIBLE_WORKSPACE_MAX_BYTES };
};

/** --store and --run, checked together: a run name as `runs create` takes it, and a grade to store. */
const storeFlags = z
  .object({
    store: z.boolean().default(false),
    run: runNameSchema.optional(),
    'no-grade': z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if (v.run !== undefined && !v.store)
      ctx.addIssue({ code: 'custom', path: ['run'], message: '--run names the run that holds a stored episode; add --store' });
    if (v.store && v['no-grade'])
      ctx.addIssue({ code: 'custom', path: ['store'], message: '--store stores the episode with its reward, which needs the grade; leave out --no-grade' });
  });

function readTaskFile(file: string): { line: CrucibleRepoTaskLine; raw: string }[] {
  const lines: { line: CrucibleRepoTaskLine; raw: string }[] = [];
  const errors: string[] = [];
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      if (!raw.trim()) return;
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch (e) {
        errors.push(`  line ${i + 1}: not valid JSON (${(e as Error).message})`);
        return;
      }
      const r = crucibleRepoTaskLine.safeParse(v);
      if (r.success) lines.push({ line: r.data, raw });
      else errors.push(`  line ${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`).join('; ')}`);
    });
  if (errors.length) throw new CliError(`${file} has bad lines:\n${errors.join('\n')}`);
  return lines;
}

function findTask(values: Record<string, unknown>): { line: CrucibleRepoTaskLine; raw: string; baseDir: string } {
  const id = values.task as string;
  const file = values['task-file'] as string | undefined;
  let lines: { line: CrucibleRepoTaskLine; raw: string }[];
  let where: string;
  let baseDir: string;
  if (file) {
    if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
    lines = readTaskFile(file);
    where = file;
    baseDir = path.dirname(path.resolve(file));
  } else {
    lines = loadRepoSuite().map((line) => ({ line, raw: JSON.stringify(line) }));
    where = `the built-in suite (${REPO_SUITE_DIR})`;
    baseDir = REPO_SUITE_DIR;
  }
  const found = lines.find((t) => t.line.id === id);
  if (!found)
    throw new CliError(
      `no task "${id}" in ${where}; it has: ${lines
        .slice(0, 10)
        .map((t) => t.line.id)
        .join(', ')}${lines.length > 10 ? ', …' : ''}`,
    );
  return { ...found, baseDir };
}

export const commands: Command[] = [
  {
    name: 'episode run',
    summary: 'run one agent episode on a repository task with a scripted policy (a list of tool calls)',
    usage: USAGE,
    options: {
      task: { type: 'string' },
      suite: { type: 'string' },
      'task-file': { type: 'string' },
      script: { type: 'string' },
      runtime: { type: 'string' },
      env: { type: 'string' },
      'max-turns': { type: 'string' },
      'timeout-s': { type: 'string' },
      'token-budget': { type: 'string' },
      'max-new-tokens': { type: 'string' },
      'no-grade': { type: 'boolean' },
      store: { type: 'boolean' },
      run: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: async ({ values }) => {
      const need = ['task', 'script'].filter((k) => !values[k]);
      if (need.length) throw new CliError(`missing ${need.map((k) => `--${k}`).join(', ')}\nusage: ${USAGE}`);
      const scriptFile = values.script as string;
      if (!fs.existsSync(scriptFile)) throw new CliError(`no such file: ${scriptFile}`);
      if (values.suite !== undefined && values['task-file'] !== undefined)
        throw new CliError(`--suite and --task-file both name where the task comes from; give one\nusage: ${USAGE}`);
      const flags = storeFlags.safeParse({ store: values.store, run: values.run, 'no-grade': values['no-grade'] });
      if (!flags.success) {
        const i = flags.error.issues[0]!;
        throw new CliError(`${i.code === 'custom' ? i.message : `--${String(i.path[0])}: ${i.message}`}\nusage: ${USAGE}`);
      }
      const store = flags.data.store ? { runName: flags.data.run ?? DEFAULT_EPISODE_RUN } : null;
      const maxTurnsFlag = positiveOption(values, 'max-turns');
      const timeoutS = positiveOption(values, 'timeout-s') ?? 600;
      const tokenBudget = positiveOption(values, 'token-budget');
      const maxNewTokens = positiveOption(values, 'max-new-tokens');
      const script = parseScriptFile(fs.readFileSync(scriptFile, 'utf8'));
      if (script.errors.length) throw new CliError(`${scriptFile} has bad lines:\n${script.errors.map((e) => `  line ${e.line}: ${e.message}`).join('\n')}`);
      const runtime = sandboxRuntimeName.safeParse((values.runtime as string | undefined) ?? 'bwrap');
      if (!runtime.success) throw new CliError(`--runtime: ${runtime.error.issues[0]!.message}`);
      const maxTurns = maxTurnsFlag ?? Math.max(30, script.steps.length + 1);
      const suite = values.suite as string | undefined;
      let task: RepoTask;
      let taskId: string | undefined;
      if (store) {
        // a name a training run holds is refused before anything is played
        await episodeRunNamed((await cliDatabase()).db, store.runName).catch((e: unknown) => {
          throw e instanceof DomainError ? new CliError(`--store: ${e.message}`) : e;
        });
        ({ task, taskId } = await storeTask(values));
      } else if (suite && suite !== REPO_SUITE && !values['task-file']) {
        ({ task } = await storedTask(suite, values.task as string));
      } else {
        const { line, baseDir } = findTask(values);
        try {
          task = resolveRepoTask(line, { baseDir, caps: workspaceCaps() });
        } catch (e) {
          throw new CliError(`task ${line.id}: ${(e as Error).message}`);
        }
      }
      const env = (values.env as string | undefined) ?? task.environment;
      task = { ...task, environment: env }; // the grader runs where the episode ran
      const manager = new SandboxManager({ dataDir: dataDir(), storeDir: envStoreDir(), runtime: runtimeOptions(settings()) });
      try {
        try {
          if (builtInEnvSpec(env)) ensureBuiltInEnvironment(env, manager.storeDir);
          manager.runtime(runtime.data); // refuses a missing runtime with what to install
          await manager.environmentFor(env);
        } catch (e) {
          if (e instanceof SandboxError) throw new CliError(e.message, e.kind === 'missing_runtime' ? 3 : 2);
          throw e;
        }
        const startedAt = new Date();
        const r = await runAgentEpisode({
          manager,
          task,
          env,
          runtime: runtime.data,
          limits: episodeSandboxLimits,
          policy: new ScriptedPolicy(script.steps),
          renderer: new ByteTemplateRenderer(),
          maxTurns,
          ...(tokenBudget !== undefined ? { tokenBudget } : {}),
          ...(maxNewTokens !== undefined ? { maxNewTokens } : {}),
          timeBudgetMs: timeoutS * 1000,
          diffEachTurn: true,
          grade: values['no-grade'] ? undefined : (t, patch) => gradeRepoTask(manager, t, patch, { runtime: runtime.data, limits: episodeSandboxLimits }),
          unreadable: unreadableWorkspaceGrade,
        });
        const g = r.grade;
        // stored as the RL loop stores a repository episode (turn rows, reward with its provenance,
        // grading), with the grader's own reward, the one printed here
        const stored =
          store &&
          (await storeCliEpisode(
            (await cliDatabase()).db,
            {
              runName: store.runName,
              taskId: taskId!,
              played: playedRepoEpisode(
                task,
                { result: r, rows: agentTurnRows(r), infra: repoEpisodeInfra(r) },
                (grade) => ({ reward: grade.reward!, components: grade.components }),
                {},
              ),
              startedAt,
              host: nodeName(settings()),
              details: { script: path.resolve(scriptFile), runtime: r.runtime, maxTurns, timeoutS, tokenBudget, maxNewTokens, env },
            },
            actorOf(localUser()),
          ).catch((e: unknown) => {
            throw e instanceof DomainError ? new CliError(`--store: ${e.message}`) : e;
          }));
        const result = {
          task: task.id,
          workspaceSha256: task.workspaceSha256,
          // an infra failure (episode or grader) has no reward: it is masked, never scored 0
          reward: g?.reward ?? null,
          components: g?.components ?? {},
          status: r.end === 'sandbox_error' ? 'sandbox_error' : (g?.status ?? 'not_graded'),
          ...(g?.error ? { gradeError: g.error } : {}),
          end: r.end,
          ...(r.error ? { error: r.error } : {}),
          turns: r.turns.map((t) => ({
            assistant: t.assistant,
            toolCalls: t.toolCalls.map((c) => ({
              name: c.name,
              arguments: c.arguments,
              output: c.output,
              ...(c.error ? { error: c.error } : {}),
              durationMs: Math.round(c.durationMs * 10) / 10,
            })),
            diffSoFar: t.diffSoFar,
          })),
          diff: r.patch,
          tests: (g?.tests ?? []).map((t) => ({ name: t.name, passed: t.passed, outcome: t.outcome })),
          rejectedPaths: g?.rejectedPaths ?? [],
          tokens: r.sequence.ids.length,
          policyTokens: r.sequence.lossMask.reduce<number>((n, m) => n + m, 0),
          runtime: r.runtime,
          durationMs: r.durationMs,
          ...(stored ? { stored: { episodeId: stored.episodeId, runId: stored.runId, run: stored.runName, status: stored.status } } : {}),
        };
        output(!!values.json, result, () =>
          [
            `episode on ${task.id}: ${r.end}${r.error ? ` (${r.error})` : ''}, ${r.turns.length} turns, ${result.tokens} tokens (${result.policyTokens} from the policy)`,
            ...r.turns.flatMap((t, i) => [
              `turn ${i + 1}:`,
              ...t.toolCalls.map((c) => `  ${c.name || '(unreadable call)'} ${JSON.stringify(c.arguments)} ${c.error ? `→ error` : '→'}\n${indent(c.output)}`),
              ...(t.toolCalls.length ? [] : ['  (no tool call)']),
            ]),
            r.patch === null ? 'diff: (not read: the sandbox failed)' : r.patch ? `diff:\n${r.patch}` : 'diff: (no changes)',
            g
              ? `grade: ${g.status}, reward ${g.reward?.toFixed(3) ?? '— (not scored: infra error)'}${g.error ? ` (${g.error})` : ''}\n` +
                g.tests.map((t) => `  ${t.passed ? 'pass' : 'FAIL'}  ${t.name}${t.passed ? '' : ` (${t.outcome})`}`).join('\n')
              : `grade: not graded${values['no-grade'] ? ' (--no-grade)' : ''}`,
            ...(stored ? [`stored: episode ${stored.episodeId} (${stored.status}) in run "${stored.runName}" (${stored.runId})`] : []),
          ].join('\n'),
        );
        return r.end === 'sandbox_error' || g?.status === 'infra_error' ? 1 : 0;
      } finally {
        await manager.close();
      }
    },
  },
];

const indent = (s: string) =>
  s
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
