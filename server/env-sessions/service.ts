import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  ENV_SESSION_LIMITS,
  envGradeInput,
  envResetInput,
  envSessionEnded,
  envStepInput,
  type EnvFirstObservation,
  type EnvSessionRequest,
  type EnvSessionStatus,
  type EnvStepResult,
} from '@/core/env-sessions';
import { JOB_QUEUES } from '@/core/queues';
import { AGENT_TOOL_NAMES, type RepoGrade } from '@/core/repo-tasks';
import { episodeSandboxLimits } from '@/core/run-config';
import { runsAgentEpisodes, taskKindLabel } from '@/core/task-kinds';
import type { Db } from '@/db/client';
import { envSessionRequests, envSessions, jobs, tasks, taskSuites } from '@/db/schema';
import { defaultSystemPrompt } from '@/lib/agent/episode/system-prompt';
import { agentTaskPrompt } from '@/lib/agent/episode/task-prompt';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { toolCallFormat } from '@/lib/agent/tools/call-formats/registry';
import { toolSchemas } from '@/lib/agent/tools/tool-definitions';
import { appendAudit } from '@/server/audit/service';
import { DomainError } from '@/server/errors';
import { enqueueJob } from '@/server/queue';
import { ensureBundledSuite, isBundledSuite } from '@/server/tasks/service';

// The step API (docs/agents.md, "A step API for other trainers"): sessions of repository tasks
// for trainers outside Crucible. A session is a row here and a job (env.session) that a job
// worker hosts; every request is a row its host answers in order. The API call waits for the
// answer, watching the host's job so a dead host is reported rather than waited on.

export type EnvSessionView = {
  session: string;
  status: EnvSessionStatus;
  reason: string | null;
  task: { id: string; suite: string; externalId: string };
  runtime: string | null;
  envHash: string | null;
  requests: number;
};

export type EnvResetResult = EnvSessionView & { observation: EnvFirstObservation };
export type EnvGradeResult = RepoGrade & { patch: string | null; binarySkipped: string[] };

/** Waits: quick at first (a tool call takes milliseconds), easing off to this. */
const WAIT_MAX_POLL_MS = 100;
/** How often a waiting call checks that the session's host is alive. */
const HOST_CHECK_MS = 2_000;

async function findTask(db: Db, input: z.output<typeof envResetInput>) {
  if (input.suite && isBundledSuite(input.suite)) await ensureBundledSuite(db, input.suite);
  const rows = await db
    .select({ id: tasks.id, kind: tasks.kind, externalId: tasks.externalId, suite: taskSuites.name })
    .from(tasks)
    .innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId))
    .where(input.taskId ? eq(tasks.id, input.taskId) : and(eq(taskSuites.name, input.suite!), eq(tasks.externalId, input.task!)))
    .limit(1);
  const row = rows[0];
  if (!row)
    throw new DomainError(
      'NOT_FOUND',
      input.taskId
        ? `no task with id ${input.taskId}`
        : `no task "${input.task}" in suite "${input.suite}"; list the suite's tasks with \`crucible tasks list --suite ${input.suite}\``,
    );
  if (!runsAgentEpisodes(row.kind))
    throw new DomainError(
      'BAD_REQUEST',
      `task "${row.externalId}" is ${taskKindLabel(row.kind)}; the step API serves repository tasks (suites imported with --format crucible-repo or swebench, or "repo-suite")`,
    );
  return row;
}

async function firstObservation(
  db: Db,
  o: {
    task: { id: string };
    problemStatement: string;
    tools: readonly (typeof AGENT_TOOL_NAMES)[number][];
    toolCallFormat: Parameters<typeof toolCallFormat>[0];
  },
): Promise<EnvFirstObservation> {
  return {
    problemStatement: o.problemStatement,
    prompt: agentTaskPrompt(await loadStoredRepoTask(db, o.task.id)),
    tools: toolSchemas(o.tools),
    systemPrompt: defaultSystemPrompt(toolCallFormat(o.toolCallFormat)),
  };
}

async function view(
  db: Db,
  id: string,
): Promise<
  EnvSessionView & {
    jobId: number | null;
    problemStatement: string;
    tools: (typeof AGENT_TOOL_NAMES)[number][];
    toolCallFormat: Parameters<typeof toolCallFormat>[0];
  }
> {
  const [row] = await db
    .select({ s: envSessions, externalId: tasks.externalId, prompt: tasks.prompt, suite: taskSuites.name })
    .from(envSessions)
    .innerJoin(tasks, eq(tasks.id, envSessions.taskId))
    .innerJoin(taskSuites, eq(taskSuites.id, tasks.suiteId))
    .where(eq(envSessions.id, id));
  if (!row) throw new DomainError('NOT_FOUND', `no environment session ${id}; open one with environments.reset`);
  const { s } = row;
  return {
    session: s.id,
    status: s.status,
    reason: s.reason,
    task: { id: s.taskId, suite: row.suite, externalId: row.externalId },
    runtime: s.runtimeUsed,
    envHash: s.envHash,
    requests: s.requestSeq,
    jobId: s.jobId,
    problemStatement: row.prompt,
    tools: s.tools,
    toolCallFormat: s.toolCallFormat,
  };
}

const strip = <T extends { jobId: unknown; problemStatement: unknown; tools: unknown; toolCallFormat: unknown }>({
  jobId: _j,
  problemStatement: _p,
  tools: _t,
  toolCallFormat: _f,
  ...v
}: T) => v;

/**
 * The session's host is gone when its job ended while the session is live, or holds a lease
 * that expired (its worker died). Marks the session lost then; a session still waiting for a
 * worker (job queued) is not lost.
 */
async function checkHost(db: Db, id: string, jobId: number | null): Promise<void> {
  if (jobId === null) return;
  const [s] = await db
    .select({ status: envSessions.status, idle: sql<boolean>`${envSessions.lastActiveAt} < now() - ${envSessions.idleTimeoutS} * interval '1 second'` })
    .from(envSessions)
    .where(eq(envSessions.id, id));
  if (!s || envSessionEnded(s.status)) return;
  const [j] = await db
    .select({ state: jobs.state, expired: sql<boolean>`${jobs.leaseExpiresAt} < now()` })
    .from(jobs)
    .where(eq(jobs.id, jobId));
  // a session never hosted (its tier's quota full, no worker) expires like an idle one, and its job is withdrawn
  if (s.status === 'starting' && s.idle && j?.state === 'queued') {
    await endUnhosted(db, id, jobId, 'expired', "no worker took it within its idle timeout (the tier's quota may be full)");
    return;
  }
  const gone =
    !j ||
    j.state === 'dead' ||
    j.state === 'done' ||
    j.state === 'cancelled' ||
    (j.state === 'running' && j.expired) ||
    // a ready session's host handed its job back (a stopped worker): its sandbox went with it
    (s.status === 'ready' && j.state !== 'running');
  if (!gone) return;
  await db
    .update(envSessions)
    .set({ status: 'lost', reason: 'the worker hosting the session stopped; its sandbox is gone: reset again', endedAt: sql`now()` })
    .where(and(eq(envSessions.id, id), inArray(envSessions.status, ['starting', 'ready'])));
}

/** End a session no worker has taken yet, and withdraw its queued job so none builds a sandbox for it later. */
async function endUnhosted(db: Db, id: string, jobId: number | null, status: 'closed' | 'expired', reason: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .update(envSessions)
      .set({ status, reason, endedAt: sql`now()` })
      .where(and(eq(envSessions.id, id), eq(envSessions.status, 'starting'), sql`${envSessions.workerId} is null`));
    if (jobId !== null)
      await tx
        .update(jobs)
        .set({ state: 'cancelled', updatedAt: sql`now()` })
        .where(and(eq(jobs.id, jobId), eq(jobs.state, 'queued')));
  });
}

/** Poll `probe` until it returns a value, checking the host every HOST_CHECK_MS; undefined after `waitS`. */
async function waitFor<T>(db: Db, id: string, jobId: number | null, waitS: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + waitS * 1000;
  let nextCheck = Date.now() + HOST_CHECK_MS;
  let pause = 5;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) return undefined;
    if (Date.now() >= nextCheck) {
      await checkHost(db, id, jobId);
      nextCheck = Date.now() + HOST_CHECK_MS;
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(WAIT_MAX_POLL_MS, pause * 2);
  }
}

/** Open a session: the task resolved, a job enqueued for a worker to host it (admitted by the scheduler in `tier`), then wait up to `waitS` for it to be ready. */
export async function resetEnvSession(db: Db, raw: z.input<typeof envResetInput>, actor: string): Promise<EnvResetResult> {
  const input = envResetInput.parse(raw);
  const task = await findTask(db, input);
  const tools = input.tools ? [...new Set([...input.tools, 'submit' as const])] : [...AGENT_TOOL_NAMES];
  const id = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(envSessions)
      .values({
        taskId: task.id,
        runtime: input.runtime,
        tier: input.tier,
        tools,
        toolCallFormat: input.toolCallFormat,
        toolOutputBytes: input.toolOutputBytes,
        idleTimeoutS: input.idleTimeoutS,
        actor,
      })
      .returning({ id: envSessions.id });
    const sessionId = row!.id;
    const l = episodeSandboxLimits;
    const job = await enqueueJob(
      tx,
      JOB_QUEUES.envSession,
      { sessionId },
      { maxAttempts: 3, workload: { tier: input.tier, request: { cpu: l.cpus, memoryMb: l.memoryMb, diskMb: l.diskMb } } },
    );
    await tx.update(envSessions).set({ jobId: job.id }).where(eq(envSessions.id, sessionId));
    await appendAudit(tx, {
      actor,
      action: 'environments.reset',
      targetType: 'env_session',
      targetId: sessionId,
      details: { task: task.externalId, suite: task.suite, runtime: input.runtime, tier: input.tier },
    });
    return sessionId;
  });
  const started = await view(db, id);
  await waitFor(db, id, started.jobId, input.waitS, async () => {
    const [s] = await db.select({ status: envSessions.status }).from(envSessions).where(eq(envSessions.id, id));
    return s && s.status !== 'starting' ? s.status : undefined;
  });
  const v = await view(db, id);
  if (v.status === 'failed' || v.status === 'lost')
    throw new DomainError('PRECONDITION_FAILED', `environment session ${id} could not start: ${v.reason ?? v.status}`);
  return { ...strip(v), observation: await firstObservation(db, v) };
}

/** Who calls: the actor as audited (`user:NAME`, `token:NAME`), their username, and whether they may use anyone's session (admins). */
export type EnvSessionCaller = { actor: string; username: string; admin: boolean };

/**
 * A session is its opener's: another operator's step could rewrite the trainer's workspace
 * mid-episode or read its hidden-test results. Admins may inspect and close any session.
 */
async function assertOwner(db: Db, id: string, caller: EnvSessionCaller): Promise<void> {
  const [row] = await db.select({ actor: envSessions.actor }).from(envSessions).where(eq(envSessions.id, id));
  if (!row) throw new DomainError('NOT_FOUND', `no environment session ${id}; open one with environments.reset`);
  // the same person through the console, a token or the CLI (`user:`, `token:`, `cli:` NAME)
  const owner = row.actor.slice(row.actor.indexOf(':') + 1);
  if (owner !== caller.username && !caller.admin)
    throw new DomainError('FORBIDDEN', `environment session ${id} was opened by ${row.actor}; only they (or an admin) may use it`);
}

/** The session as it is now (status, task, requests so far). */
export async function getEnvSession(db: Db, id: string, caller: EnvSessionCaller): Promise<EnvSessionView> {
  await assertOwner(db, id, caller);
  const v = await view(db, id);
  await checkHost(db, id, v.jobId);
  return strip(await view(db, id));
}

/** Send one request to the session's host and wait for its answer. */
async function request(db: Db, id: string, req: EnvSessionRequest, waitS: number): Promise<Record<string, unknown>> {
  const v = await view(db, id);
  if (envSessionEnded(v.status))
    throw new DomainError(
      'PRECONDITION_FAILED',
      `environment session ${id} is ${v.status}${v.reason ? `: ${v.reason}` : ''}; open a new one with environments.reset`,
    );
  const seq = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(envSessions)
      .set({ requestSeq: sql`${envSessions.requestSeq} + 1`, lastActiveAt: sql`now()` })
      // close always goes through, even after the last request a session may make
      .where(
        and(
          eq(envSessions.id, id),
          inArray(envSessions.status, ['starting', 'ready']),
          lt(envSessions.requestSeq, ENV_SESSION_LIMITS.maxRequests + (req.kind === 'close' ? 1 : 0)),
        ),
      )
      .returning({ seq: envSessions.requestSeq });
    if (!row) return undefined;
    await tx.insert(envSessionRequests).values({ sessionId: id, seq: row.seq, request: req });
    return row.seq;
  });
  if (seq === undefined) {
    const now = await view(db, id);
    if (envSessionEnded(now.status))
      throw new DomainError('PRECONDITION_FAILED', `environment session ${id} is ${now.status}${now.reason ? `: ${now.reason}` : ''}`);
    throw new DomainError(
      'TOO_MANY_REQUESTS',
      `environment session ${id} has made ${ENV_SESSION_LIMITS.maxRequests} requests, the most one session may; close it and reset`,
    );
  }
  const answered = await waitFor(db, id, v.jobId, waitS, async () => {
    const [r] = await db
      .select({ response: envSessionRequests.response, error: envSessionRequests.error })
      .from(envSessionRequests)
      .where(and(eq(envSessionRequests.sessionId, id), eq(envSessionRequests.seq, seq)));
    if (r?.response || r?.error) return r;
    const [s] = await db.select({ status: envSessions.status, reason: envSessions.reason }).from(envSessions).where(eq(envSessions.id, id));
    // ended by something else (idle expiry, a lost host, a close): the host may never answer
    if (!s || envSessionEnded(s.status)) return { response: null, error: `the session is ${s?.status ?? 'gone'}${s?.reason ? `: ${s.reason}` : ''}` };
    return undefined;
  });
  if (!answered)
    throw new DomainError(
      'TIMEOUT',
      `environment session ${id}: request ${seq} (${req.kind}) is still running after ${waitS} s; later requests wait behind it, or close the session`,
    );
  if (answered.error || !answered.response)
    throw new DomainError('PRECONDITION_FAILED', `environment session ${id}, request ${seq} (${req.kind}): ${answered.error}`);
  return answered.response;
}

/** Run tool calls (structured, or the model's text parsed in the session's format) in the session's workspace. */
export async function stepEnvSession(db: Db, raw: z.input<typeof envStepInput>, caller: EnvSessionCaller): Promise<EnvStepResult> {
  const input = envStepInput.parse(raw);
  await assertOwner(db, input.session, caller);
  return (await request(db, input.session, { kind: 'step', calls: input.calls, text: input.text }, input.waitS)) as unknown as EnvStepResult;
}

/** Grade the workspace as it is now: the agent's patch in a clean sandbox with the hidden tests. The session stays open. */
export async function gradeEnvSession(db: Db, raw: z.input<typeof envGradeInput>, caller: EnvSessionCaller): Promise<EnvGradeResult> {
  const input = envGradeInput.parse(raw);
  await assertOwner(db, input.session, caller);
  return (await request(db, input.session, { kind: 'grade' }, input.waitS)) as unknown as EnvGradeResult;
}

/** Close the session and give its sandbox back. Closing an ended session says how it ended. */
export async function closeEnvSession(db: Db, id: string, caller: EnvSessionCaller): Promise<EnvSessionView> {
  await assertOwner(db, id, caller);
  const { actor } = caller;
  const v = await view(db, id);
  // not hosted yet: closed here and its job withdrawn (a host that claims it anyway finds it closed and stops)
  if (v.status === 'starting') await endUnhosted(db, id, v.jobId, 'closed', null);
  const now = await view(db, id);
  // behind a running step or grade (minutes, at worst): as long as any request may wait
  if (!envSessionEnded(now.status))
    await request(db, id, { kind: 'close' }, ENV_SESSION_LIMITS.waitMaxS).catch((e: unknown) => {
      // ended meanwhile (lost, expired): closing it is done either way
      if (!(e instanceof DomainError) || e.code !== 'PRECONDITION_FAILED') throw e;
    });
  // the host ends the session (and gives its sandbox back) right after answering
  await waitFor(db, id, v.jobId, 30, async () => {
    const [s] = await db.select({ status: envSessions.status }).from(envSessions).where(eq(envSessions.id, id));
    return !s || envSessionEnded(s.status) ? true : undefined;
  });
  await appendAudit(db, { actor, action: 'environments.close', targetType: 'env_session', targetId: id });
  return strip(await view(db, id));
}

/**
 * Forget sessions that ended more than `olderThanMs` ago, with their stored requests and
 * answers (the audit rows of their reset and close stay). Returns how many.
 */
export async function pruneEndedEnvSessions(db: Db, olderThanMs: number): Promise<number> {
  const gone = await db
    .delete(envSessions)
    .where(and(isNotNull(envSessions.endedAt), lt(envSessions.endedAt, sql`now() - ${olderThanMs} * interval '1 millisecond'`)))
    .returning({ id: envSessions.id });
  return gone.length;
}
