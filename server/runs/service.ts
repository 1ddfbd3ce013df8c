import { AGENT_EPISODE_KINDS } from '@/core/task-kinds';
import { and, asc, desc, eq, ilike, inArray, notInArray, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { metricSamples, models, runEvents, runs, tasks, taskSuites } from '@/db/schema';
import { appendAudit, type DbOrTx } from '@/server/audit/service';
import type { Tx } from '@/server/queue';
import { DomainError } from '@/server/errors';
import { ensureBundledSuite, ensureBuiltinSuite, isBundledSuite } from '@/server/tasks/service';
import { REPO_SUITE } from '@/server/tasks/repo-suite-bundled';
import { COMPARE_MAX_RUNS } from '@/core/metrics';
import { HF_TASK_KINDS } from '@/core/tasks';
import { EPISODE_RUN_ORIGIN, runConfigSchema, type PolicyChoice, type RunConfigInput } from '@/core/run-config';
import { allowedFrom, RUN_STATUSES, type RunAction, type RunStatus } from '@/core/run-status';
import { applyRunTransition, wakeRunLoop } from './lifecycle';
import { downsampledMetricRows } from './metric-downsample';
import { runTokens } from './run-tokens';

/**
 * Points per metric series the charts get by default: at most this many steps, min/max per
 * bucket kept (./metric-downsample.ts). A chart panel is 300–450 px wide (1100 expanded): with
 * every bucket's extremes kept this draws like the full series, while a long run's payload
 * stays bounded; `full` asks for every sample.
 */
export const CHART_MAX_POINTS = 300;

/**
 * The default points per series for `runs` runs on one chart: CHART_MAX_POINTS up to four
 * runs, fewer beyond (eight lines on a panel show no more detail than four), at least 100.
 */
export const chartPointsFor = (runs: number) => Math.max(100, Math.min(CHART_MAX_POINTS, Math.floor((4 * CHART_MAX_POINTS) / Math.max(1, runs))));

/** How the metric reads choose between downsampled and full series. */
export const metricResolutionSchema = z.object({
  maxPoints: z
    .number()
    .int()
    .min(20, 'maxPoints must be at least 20 (each bucket keeps its first, last, min and max)')
    .max(20_000, 'maxPoints is at most 20000; pass full: true for every sample')
    .optional(),
  full: z.boolean().optional(),
});

export const runNameSchema = z.string().trim().min(1, 'give the run a name').max(120, 'name is at most 120 characters');

export const newRunSchema = z.object({
  name: runNameSchema,
  config: runConfigSchema,
  /**
   * Also launch a control arm: a twin run with the same config and seed but learning rate 0
   * (no update), linked by `controlOf`, so the run's curves can be read against "no learning"
   * on the same tasks and sampling seeds (docs/rl.md, "Control arm").
   */
  controlArm: z.boolean().default(false),
});

/** Name of a run's control arm (runs are named at most 120 characters). */
export const controlArmName = (name: string) => `${name.slice(0, 110)} (control)`;

export const listRunsSchema = z.object({
  status: z.array(z.enum(RUN_STATUSES)).max(RUN_STATUSES.length).optional(),
  search: z.string().max(200).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(200).default(25),
});

async function recordEvent(tx: DbOrTx, e: typeof runEvents.$inferInsert) {
  await tx.insert(runEvents).values(e);
}

async function resolveSuite(tx: DbOrTx, name: string) {
  const [suite] = await tx.select().from(taskSuites).where(eq(taskSuites.name, name));
  // a suite of repository tasks runs agent episodes (workers/rl/agent-episode.ts, docs/agents.md)
  if (suite) return suite;
  if (isBundledSuite(name)) return ensureBundledSuite(tx, name);
  throw new DomainError(
    'BAD_REQUEST',
    `task suite "${name}" does not exist; import it with \`crucible tasks import FILE --suite ${name}\` or choose "builtin" (or "stories", text tasks for a registered story model, or "${REPO_SUITE}", repository tasks for agents)`,
  );
}

/** A curriculum must name train tasks of the run's suite: say which do not exist, before anything starts. */
async function checkTrainTasks(tx: DbOrTx, suite: { id: string; name: string }, ids: string[]) {
  if (!ids.length) return;
  const found = await tx
    .select({ externalId: tasks.externalId })
    .from(tasks)
    .where(and(eq(tasks.suiteId, suite.id), eq(tasks.split, 'train'), inArray(tasks.externalId, ids)));
  const missing = ids.filter((id) => !found.some((t) => t.externalId === id));
  if (missing.length) {
    throw new DomainError(
      'BAD_REQUEST',
      `trainTasks: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''} not in the train split of suite "${suite.name}"; list its ids with \`crucible tasks list --suite ${suite.name} --split train\``,
    );
  }
}

/**
 * A run that trains a Hugging Face model names one that is registered (its files are what
 * every worker host fetches), on a suite it can run (HF_TASK_KINDS): text tasks, or
 * repository tasks when the model has a chat template to hold the agent conversation in.
 * I/O prompts are written for the byte model's tokenizer (workers/rl/run-policy.ts).
 */
async function checkPolicyModel(tx: DbOrTx, policy: PolicyChoice, suite: { id: string; name: string }) {
  if (policy.kind !== 'hf') return;
  const [row] = await tx.select({ name: models.name, chatTemplate: models.chatTemplate }).from(models).where(eq(models.name, policy.model));
  if (!row)
    throw new DomainError(
      'BAD_REQUEST',
      `policy.model: no model named "${policy.model}" is registered; register it with \`crucible models import DIR --name ${policy.model}\` (see \`crucible models list\`)`,
    );
  const [other] = await tx
    .select({ externalId: tasks.externalId, kind: tasks.kind })
    .from(tasks)
    .where(and(eq(tasks.suiteId, suite.id), notInArray(tasks.kind, [...HF_TASK_KINDS])))
    .limit(1);
  if (other)
    throw new DomainError(
      'BAD_REQUEST',
      `policy: a registered model runs text and repository tasks, but suite "${suite.name}" holds ${other.kind} tasks (e.g. ${other.externalId}), whose prompts are written for the byte model; choose a text suite such as "stories", a repository suite, or the built-in byte model`,
    );
  if (row.chatTemplate) return;
  const [repo] = await tx
    .select({ externalId: tasks.externalId })
    .from(tasks)
    .where(and(eq(tasks.suiteId, suite.id), inArray(tasks.kind, AGENT_EPISODE_KINDS)))
    .limit(1);
  if (repo)
    throw new DomainError(
      'BAD_REQUEST',
      `policy: model "${policy.model}" has no chat template, and suite "${suite.name}" holds repository tasks, which are agent conversations rendered with the model's chat template; add chat_template.jinja (or chat_template in tokenizer_config.json) to the model directory and import it again, or choose a text suite`,
    );
}

/** A run to create; `launchNotes` (what the launch decided, e.g. isolation defaults) go into its `created` event. */
type NewRunInput = { name: string; config: RunConfigInput; controlArm?: boolean; launchNotes?: string[] };

export async function createRun(db: Db, input: NewRunInput, actor: string, createdBy: string | null = null) {
  return db.transaction((tx) => createRunIn(tx, input, actor, createdBy));
}

/**
 * Create a run (and its control arm) in the caller's transaction: the rows, their events
 * and audit rows, and the RL loop's job that starts each (docs/rl.md).
 */
async function createRunIn(tx: Tx, input: NewRunInput, actor: string, createdBy: string | null, clonedFrom: string | null = null) {
  const { name, config, controlArm } = newRunSchema.parse(input);
  const notes = input.launchNotes ?? [];
  if (config.origin === EPISODE_RUN_ORIGIN)
    throw new DomainError(
      'BAD_REQUEST',
      `origin: "${EPISODE_RUN_ORIGIN}" marks a run that holds episodes stored by \`crucible episode run --store\` (scripted, nothing trained); a launched run cannot have it: leave origin out`,
    );
  if (controlArm && config.learningRate === 0) {
    throw new DomainError(
      'BAD_REQUEST',
      "a control arm is the learning rate 0 twin of a run that learns, but this run's learning rate is already 0; set a learning rate above 0, or launch without a control arm",
    );
  }
  const suite = await resolveSuite(tx, config.suite);
  await checkTrainTasks(tx, suite, config.trainTasks);
  await checkPolicyModel(tx, config.policy, suite);
  const insert = async (runName: string, runConfig: typeof config, controlOf: string | null, from: string | null) => {
    const [run] = await tx
      .insert(runs)
      .values({
        name: runName,
        config: runConfig,
        suiteId: suite.id,
        createdBy,
        controlOf,
        clonedFrom: from,
        episodesTotal: runConfig.iterations * runConfig.tasksPerIteration * runConfig.groupSize,
      })
      .returning();
    await recordEvent(tx, {
      runId: run!.id,
      type: 'created',
      toStatus: 'queued',
      actor,
      message:
        (controlOf ? `created by ${actor} as the control arm (learning rate 0) of ${name}` : `created by ${actor}`) + notes.map((n) => `; ${n}`).join(''),
      data: { ...(controlOf ? { controlOf } : {}), ...(notes.length ? { notes } : {}) },
    });
    await appendAudit(tx, {
      actor,
      action: 'run.create',
      targetType: 'run',
      targetId: run!.id,
      details: { name: runName, config: runConfig, ...(controlOf ? { controlOf } : {}), ...(from ? { clonedFrom: from } : {}) },
    });
    await wakeRunLoop(tx, run!.id);
    return run!;
  };
  const run = await insert(name, config, null, clonedFrom);
  // same config and seed, so the same v0, task order and sampling seeds; only the update differs
  const control = controlArm ? await insert(controlArmName(name), { ...config, learningRate: 0 }, run.id, null) : null;
  return { ...run, controlRunId: control?.id ?? null };
}

/** The two arms of a paired run, whichever of them `run` is; null for a run without a control arm. */
export async function runArms(db: DbOrTx, run: { id: string; controlOf: string | null }) {
  const mainId = run.controlOf ?? run.id;
  const cols = { id: runs.id, name: runs.name, status: runs.status };
  const [main] = await db.select(cols).from(runs).where(eq(runs.id, mainId));
  const [control] = await db.select(cols).from(runs).where(eq(runs.controlOf, mainId)).orderBy(asc(runs.createdAt)).limit(1);
  return main && control ? { main, control } : null;
}

export async function getRun(db: DbOrTx, id: string) {
  const [run] = await db
    .select({ run: runs, suiteName: taskSuites.name })
    .from(runs)
    .leftJoin(taskSuites, eq(taskSuites.id, runs.suiteId))
    .where(eq(runs.id, id));
  if (!run) throw new DomainError('NOT_FOUND', `no run ${id}; list runs with \`crucible runs list\``);
  return { ...run.run, suiteName: run.suiteName, arms: await runArms(db, run.run) };
}

export async function listRuns(db: Db, input: z.input<typeof listRunsSchema>) {
  const q = listRunsSchema.parse(input);
  const conds = [];
  if (q.status?.length) conds.push(inArray(runs.status, q.status));
  const term = q.search?.trim();
  if (term) conds.push(or(ilike(runs.name, `%${term.replace(/[%_\\]/g, '\\$&')}%`), sql`${runs.id}::text like ${term.toLowerCase() + '%'}`));
  const where = conds.length ? and(...conds) : undefined;
  const items = await db
    .select()
    .from(runs)
    .where(where)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const [{ total } = { total: 0 }] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(runs)
    .where(where);
  return { items, total, page: q.page, pageSize: q.pageSize };
}

/**
 * Apply an operator action (server/runs/lifecycle.ts: one conditional update with its event
 * and audit row, so two racing requests cannot both succeed).
 */
export async function transitionRun(db: Db, id: string, action: RunAction, actor: string) {
  return db.transaction(async (tx) => {
    const run = await applyRunTransition(tx, id, action, actor);
    // A control arm follows its main run (pause, resume, cancel), so it neither outlives it
    // nor races ahead; where its own status does not allow the action it is left as it is.
    const [control] = await tx.select({ id: runs.id, status: runs.status }).from(runs).where(eq(runs.controlOf, id)).for('update');
    if (control && allowedFrom[action].includes(control.status as RunStatus)) await applyRunTransition(tx, control.id, action, actor);
    return run;
  });
}

/** A new run with a run's config (and a control arm where it had one), in one transaction. */
export async function cloneRun(db: Db, id: string, actor: string, createdBy: string | null, name?: string) {
  return db.transaction(async (tx) => {
    const source = await getRun(tx, id);
    // a run launched with a control arm is cloned with one too
    const controlArm = source.arms?.main.id === source.id;
    const run = await createRunIn(tx, { name: name ?? `${source.name} (clone)`.slice(0, 120), config: source.config, controlArm }, actor, createdBy, id);
    await recordEvent(tx, { runId: run.id, type: 'cloned', actor, message: `cloned from ${source.name}`, data: { from: id } });
    return run;
  });
}

export async function listRunEvents(db: Db, runId: string) {
  return db.select().from(runEvents).where(eq(runEvents.runId, runId)).orderBy(asc(runEvents.id));
}

/** A run's samples: every one (up to 50k) by default, or downsampled to `maxPoints` per series when given. */
export async function runMetrics(db: Db, runIds: string[], names?: string[], maxPoints?: number) {
  if (maxPoints) {
    const { rows } = await downsampledMetricRows(db, runIds, { maxPoints, names });
    return rows.map(({ runId, name, step, value, at }) => ({ runId, name, step, value, at }));
  }
  const conds = [inArray(metricSamples.runId, runIds)];
  if (names?.length) conds.push(inArray(metricSamples.name, names));
  return db
    .select({ runId: metricSamples.runId, name: metricSamples.name, step: metricSamples.step, value: metricSamples.value, at: metricSamples.at })
    .from(metricSamples)
    .where(and(...conds))
    .orderBy(asc(metricSamples.step), asc(metricSamples.at))
    .limit(50_000);
}

export async function listSuites(db: Db) {
  await ensureBuiltinSuite(db);
  await ensureBundledSuite(db, 'stories');
  await ensureBundledSuite(db, REPO_SUITE);
  const rows = await db
    .select({
      id: taskSuites.id,
      name: taskSuites.name,
      description: taskSuites.description,
      // qualified by hand: drizzle writes ${taskSuites.id} as a bare "id", which inside the subquery is tasks.id
      tasks: sql<number>`(select count(*)::int from tasks t where t.suite_id = "task_suites"."id")`,
      /** repository tasks in it: the launch form then offers the agent's tool set and budgets */
      repoTasks: sql<number>`(select count(*)::int from tasks t where t.suite_id = "task_suites"."id" and t.kind = 'repo')`,
    })
    .from(taskSuites)
    .orderBy(asc(taskSuites.name));
  return rows;
}

export const compareRunsSchema = metricResolutionSchema.extend({
  ids: z
    .array(z.uuid('each id must be a run id (uuid)'))
    .min(1, 'pick at least one run')
    .max(COMPARE_MAX_RUNS, `compare at most ${COMPARE_MAX_RUNS} runs at once; deselect some`)
    .refine((ids) => new Set(ids).size === ids.length, 'each run may appear only once'),
});

/**
 * Runs (name, status, progress) and their metric samples, labels included (e.g.
 * sandbox_failures{status}), for the run page and the compare page: downsampled to
 * CHART_MAX_POINTS (or `maxPoints`) per series keeping each bucket's min and max, or every
 * sample with `full` (the CSV download). `downsampled` names (`runId:metric`) the series that
 * lost points. Unknown ids are an error naming them rather than a silently shorter comparison.
 */
export async function compareRunMetrics(db: Db, input: z.input<typeof compareRunsSchema>) {
  const parsed = compareRunsSchema.parse(input);
  const { ids, full } = parsed;
  const maxPoints = parsed.maxPoints ?? chartPointsFor(ids.length);
  const found = await db
    .select({
      id: runs.id,
      name: runs.name,
      status: runs.status,
      currentIteration: runs.currentIteration,
      config: runs.config,
      createdAt: runs.createdAt,
      startedAt: runs.startedAt,
    })
    .from(runs)
    .where(inArray(runs.id, ids));
  const missing = ids.filter((id) => !found.some((r) => r.id === id));
  if (missing.length) throw new DomainError('NOT_FOUND', `no run ${missing.join(', ')}; list runs with \`crucible runs list\` and compare existing ids`);
  const { rows: samples, downsampled } = full ? { rows: await fullMetricRows(db, ids), downsampled: [] } : await downsampledMetricRows(db, ids, { maxPoints });
  const tokens = await runTokens(db, new Map(found.map((r) => [r.id, r.config.groupSize * r.config.tasksPerIteration])));
  const order = new Map(ids.map((id, i) => [id, i]));
  return {
    runs: found
      .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
      .map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        currentIteration: r.currentIteration,
        iterations: r.config.iterations,
        algorithm: r.config.algorithm,
        createdAt: r.createdAt,
        startedAt: r.startedAt,
        // the charts' "episodes" x-axis: step × this
        episodesPerIteration: r.config.groupSize * r.config.tasksPerIteration,
        // the charts' "generated tokens" x-axis: [step, tokens so far], ascending (null: no count)
        tokens: tokens.get(r.id) ?? null,
        // the compare page's table of the settings that differ
        config: r.config,
      })),
    // `at` as epoch ms: a Date per sample is most of the payload once serialised (superjson);
    // labels only where a sample has some (most have none: an empty object each cost a fifth
    // of the 8-run comparison's serialisation, docs/benchmarks.md)
    samples: samples.map(({ labels, ...s }) => ({ ...s, runId: s.runId!, at: s.at.getTime(), ...(labels && Object.keys(labels).length ? { labels } : {}) })),
    downsampled,
    maxPoints: full ? null : maxPoints,
  };
}

/** Every sample of `ids` (what the run and compare pages read before downsampling; kept for `full` and the benchmark). */
export async function fullMetricRows(db: Db, ids: string[]) {
  return db
    .select({
      runId: metricSamples.runId,
      name: metricSamples.name,
      step: metricSamples.step,
      value: metricSamples.value,
      labels: metricSamples.labels,
      at: metricSamples.at,
    })
    .from(metricSamples)
    .where(inArray(metricSamples.runId, ids))
    .orderBy(asc(metricSamples.step), asc(metricSamples.at), asc(metricSamples.id))
    .limit(1_000_000);
}
