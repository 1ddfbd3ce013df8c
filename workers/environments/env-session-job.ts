import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { envSessionRequest, type EnvSessionStatus } from '@/core/env-sessions';
import { JOB_QUEUES } from '@/core/queues';
import { episodeSandboxLimits } from '@/core/run-config';
import type { Settings } from '@/core/settings';
import type { JobPayload } from '@/core/job-payloads';
import type { Db } from '@/db/client';
import { envSessionRequests, envSessions } from '@/db/schema';
import { storeDirFor } from '@/lib/sandbox/env/env-store';
import { AgentWorkspace } from '@/lib/agent/episode/agent-workspace';
import { gradeSession, runSessionStep, SessionSandboxError } from '@/lib/agent/episode/session-step';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { toolCallFormat } from '@/lib/agent/tools/call-formats/registry';
import { openArtifactStore } from '@/lib/artifacts/open-artifact-store';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { quarantineProblem } from '@/server/environments/quarantine';
import { sandboxRecords } from '@/server/environments/sandbox-records';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { jobHandler, type JobHandler } from '@/workers/jobs/job-handler';

// The host of a step-API session (docs/agents.md, "A step API for other trainers"): the job
// holds the session's sandbox for as long as the trainer uses it, answering its requests
// (env_session_requests) in order. The job's lease is heartbeated by the job loop meanwhile, so
// a host that dies is noticed like any lost job: the re-run finds the session started before
// and marks it lost (its sandbox died with the host), and the service tells the trainer.

export type EnvSessionDeps = { dataDir: string; envStore?: string };
/** Poll for the next request: quick while the trainer is active, easing off when it is idle. */
const POLL_MIN_MS = 10;
const POLL_MAX_MS = 200;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/** End the session (only while it is live: a session already ended stays as it ended) and fail whatever is still unanswered. */
async function endSession(db: Db, id: string, status: EnvSessionStatus, reason: string | null): Promise<void> {
  await db
    .update(envSessions)
    .set({ status, reason, endedAt: sql`now()` })
    .where(and(eq(envSessions.id, id), inArray(envSessions.status, ['starting', 'ready'])));
  const [now] = await db.select({ status: envSessions.status, reason: envSessions.reason }).from(envSessions).where(eq(envSessions.id, id));
  await db
    .update(envSessionRequests)
    .set({ error: `the session is ${now?.status ?? status}${now?.reason ? `: ${now.reason}` : ''}`, answeredAt: sql`now()` })
    .where(and(eq(envSessionRequests.sessionId, id), isNull(envSessionRequests.response), isNull(envSessionRequests.error)));
}

async function answer(db: Db, id: string, seq: number, result: { response: Record<string, unknown> } | { error: string }) {
  await db
    .update(envSessionRequests)
    .set({ ...('response' in result ? { response: result.response } : { error: result.error }), answeredAt: sql`now()` })
    .where(and(eq(envSessionRequests.sessionId, id), eq(envSessionRequests.seq, seq)));
  await db
    .update(envSessions)
    .set({ lastActiveAt: sql`now()` })
    .where(eq(envSessions.id, id));
}

/** The env.session handler of a job worker, its sandboxes under `deps.dataDir` (one pool per process, made on first use). */
export function createEnvSessionHandler(s: Settings, deps: EnvSessionDeps): JobHandler<JobPayload<typeof JOB_QUEUES.envSession>> {
  let manager: SandboxManager | undefined;
  const sandboxes = (db: Db) =>
    (manager ??= new SandboxManager({
      dataDir: deps.dataDir,
      storeDir: deps.envStore ?? storeDirFor(deps.dataDir, s.CRUCIBLE_ENV_STORE),
      runtime: runtimeOptions(s),
      records: sandboxRecords(db, { images: openArtifactStore(s, { dataDir: deps.dataDir, db }) }),
      actor: 'system:env-session',
    }));
  return jobHandler(JOB_QUEUES.envSession, {
    leaseMs: 60_000,
    close: async () => {
      await manager?.close();
      manager = undefined;
    },
    run: async (job, ctx) => {
      const { db } = ctx;
      const id = job.payload.sessionId;
      const [session] = await db.select().from(envSessions).where(eq(envSessions.id, id));
      if (!session) return; // deleted with its task
      if (session.status !== 'starting') {
        // hosted before by a worker that died (or lost its lease): its sandbox went with it
        await endSession(db, id, 'lost', 'the worker hosting the session stopped; its sandbox is gone: reset again');
        return;
      }
      await db.update(envSessions).set({ workerId: ctx.workerId }).where(eq(envSessions.id, id));
      let workspace: AgentWorkspace | undefined;
      let end: { status: EnvSessionStatus; reason: string | null } = { status: 'lost', reason: 'the worker hosting the session stopped: reset again' };
      try {
        const task = await loadStoredRepoTask(db, session.taskId);
        const env = task.environment;
        const quarantined = await quarantineProblem(db, { name: env });
        if (quarantined) return void (end = { status: 'failed', reason: quarantined });
        const limits = episodeSandboxLimits;
        try {
          workspace = await AgentWorkspace.acquire({
            manager: sandboxes(db),
            task,
            runtime: session.runtime,
            env,
            limits,
            tools: session.tools,
            toolLimits: { outputBytes: session.toolOutputBytes },
          });
          await workspace.prepare();
        } catch (e) {
          return void (end = { status: 'failed', reason: `the session's sandbox could not be set up: ${(e as Error).message}` });
        }
        const sb = workspace.sandbox;
        await db
          .update(envSessions)
          .set({ status: 'ready', readyAt: sql`now()`, lastActiveAt: sql`now()`, runtimeUsed: sb.runtimeName, envHash: sb.envHash })
          .where(and(eq(envSessions.id, id), eq(envSessions.status, 'starting')));
        ctx.log(`env session ${id}: task ${task.id} ready on ${sb.runtimeName} (${sb.envHash.slice(0, 19)})`);
        const format = toolCallFormat(session.toolCallFormat);
        let pollMs = POLL_MIN_MS;
        for (;;) {
          if (ctx.signal.aborted) return;
          const [next] = await db
            .select()
            .from(envSessionRequests)
            .where(and(eq(envSessionRequests.sessionId, id), isNull(envSessionRequests.response), isNull(envSessionRequests.error)))
            .orderBy(asc(envSessionRequests.seq))
            .limit(1);
          if (!next) {
            const [live] = await db
              .select({
                status: envSessions.status,
                idle: sql<boolean>`${envSessions.lastActiveAt} < now() - ${envSessions.idleTimeoutS} * interval '1 second'`,
              })
              .from(envSessions)
              .where(eq(envSessions.id, id));
            if (!live || (live.status !== 'ready' && live.status !== 'starting')) return void (end = { status: live?.status ?? 'closed', reason: null });
            if (live.idle) return void (end = { status: 'expired', reason: `idle for more than ${session.idleTimeoutS} s` });
            await sleep(pollMs, ctx.signal);
            pollMs = Math.min(POLL_MAX_MS, pollMs * 2);
            continue;
          }
          pollMs = POLL_MIN_MS;
          const req = envSessionRequest.safeParse(next.request);
          if (!req.success) {
            await answer(db, id, next.seq, { error: `request ${next.seq} is not a step, grade or close request` });
            continue;
          }
          const r = req.data;
          if (r.kind === 'close') {
            await answer(db, id, next.seq, { response: { closed: true } });
            return void (end = { status: 'closed', reason: null });
          }
          try {
            const response =
              r.kind === 'step'
                ? await runSessionStep(workspace, format, r)
                : await gradeSession(workspace, task, (patch) => gradeRepoTask(sandboxes(db), task, patch, { runtime: sb.runtimeName, limits }));
            await answer(db, id, next.seq, { response: response as unknown as Record<string, unknown> });
          } catch (e) {
            if (!(e instanceof SessionSandboxError)) throw e;
            await answer(db, id, next.seq, { error: e.message });
            return void (end = { status: 'failed', reason: e.message });
          }
        }
      } catch (e) {
        end = { status: 'failed', reason: `the session's host failed: ${(e as Error).message}` };
        ctx.log(`env session ${id}: ${end.reason}`);
      } finally {
        await workspace?.release().catch((e: Error) => ctx.log(`env session ${id}: releasing its sandbox failed: ${e.message}`));
        await endSession(db, id, end.status, end.reason);
      }
    },
  });
}
