import { rmSync } from 'node:fs';
import path from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { auditLog, envSessions, jobs } from '@/db/schema';
import { loadRepoTask, REPO_SUITE_DIR } from '@/lib/agent/suite/repo-suite';
import { toolCallFormat } from '@/lib/agent/tools/call-formats/registry';
import { applyWorkspacePatch } from '@/lib/agent/workspace/workspace-diff';
import { ensureTestEnvironment, TEST_STORE, testDataDir } from '@/lib/sandbox/sandbox.testkit';
import { callerAs } from '@/test/callers';
import { freshDatabase } from '@/test/database';
import { createEnvSessionHandler } from '@/workers/environments/env-session-job';
import { runJobLoop } from '@/workers/jobs/job-loop';

// The step API end to end: tRPC procedures as an operator calls them, a job worker hosting the
// sessions (the real job loop), real bwrap sandboxes and the real grader on a built-in task.

const TASK = 'py-build-order-cycles';
const line = loadRepoTask(path.join(REPO_SUITE_DIR, TASK));
describe('the step API: reset, step, grade, close over real sandboxes', () => {
  let database: Database;
  let operator: Awaited<ReturnType<typeof callerAs>>;
  let dataDir: string;
  const hostHandler = () => createEnvSessionHandler(parseSettings({}), { dataDir, envStore: TEST_STORE });
  let handler: ReturnType<typeof hostHandler>;
  let stop: AbortController;
  let loop: Promise<void>;
  const startHost = () => {
    stop = new AbortController();
    handler = hostHandler();
    loop = runJobLoop({
      db: database.db,
      sql: database.sql,
      workerId: 'test-env-host',
      handlers: [handler as never],
      concurrency: 4,
      pollMs: 200,
      drainMs: 500,
      signal: stop.signal,
      log: () => undefined,
    });
  };
  const stopHost = async () => {
    stop.abort();
    await loop;
    await handler.close?.();
  };

  beforeAll(async () => {
    database = await freshDatabase();
    ensureTestEnvironment();
    dataDir = testDataDir('env-sessions');
    operator = await callerAs(database.db, 'operator');
    startHost();
  });
  afterAll(async () => {
    await stopHost();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an agent solves a task through steps: reward 1, resolved; the hidden tests are not in its workspace', async () => {
    const opened = await operator.environments.reset({ suite: 'repo-suite', task: TASK, toolCallFormat: 'xml-function' });
    expect(opened.status).toBe('ready');
    expect(opened.runtime).toBe('bwrap');
    expect(opened.envHash).toMatch(/^sha256:/);
    expect(opened.task).toMatchObject({ suite: 'repo-suite', externalId: TASK });
    expect(opened.observation.problemStatement).toBe(line.problem_statement);
    // the first user message Crucible's own agents get: statement, layout, test command
    expect(opened.observation.prompt.startsWith(line.problem_statement.trim())).toBe(true);
    expect(opened.observation.prompt).toMatch(/git checkout of its base commit[\s\S]*\nRun the tests with: \S/);
    expect(opened.observation.tools.map((t) => t.function.name)).toEqual([
      'bash',
      'read_file',
      'view',
      'write_file',
      'str_replace',
      'insert',
      'undo_edit',
      'think',
      'submit',
    ]);
    expect(opened.observation.systemPrompt).toContain('<function=');
    const session = opened.session;

    // a grade before any change: the fail-to-pass tests fail
    const before = await operator.environments.grade({ session });
    expect(before.status).toBe('graded');
    expect(before.reward).toBeLessThan(1);
    expect(before.components.resolved).toBe(0);
    expect(before.patch).toBe('');

    // structured calls: a listing shows no hidden test file
    const listing = await operator.environments.step({ session, calls: [{ name: 'bash', arguments: { command: 'find . -name "*.py" | sort' } }] });
    expect(listing.done).toBe(false);
    const hidden = Object.keys(line.hidden_tests ?? {});
    expect(hidden.length).toBeGreaterThan(0);
    for (const h of hidden) expect(listing.observations[0]!.content).not.toContain(h);

    // the gold solution, file by file, as write_file calls with OpenAI-style string arguments
    const files = workspaceOf(line);
    const solved = applyWorkspacePatch(files, line.gold_patch!);
    const changed = Object.keys(solved).filter((p) => solved[p] !== files[p]);
    expect(changed.length).toBeGreaterThan(0);
    const wrote = await operator.environments.step({
      session,
      calls: changed.map((p, i) => ({ name: 'write_file', id: `call_${i}`, arguments: JSON.stringify({ path: p, content: solved[p] }) })),
    });
    expect(wrote.observations).toHaveLength(changed.length);
    expect(wrote.observations.every((o) => !o.error)).toBe(true);
    expect(wrote.observations[0]!.id).toBe('call_0');

    // the model's own text, parsed in the session's format (Qwen3-Coder's XML): submit ends the episode
    const submitted = await operator.environments.step({
      session,
      text: `Done.\n${toolCallFormat('xml-function').format([{ name: 'submit', arguments: {} }])}`,
    });
    expect(submitted.done).toBe(true);
    expect(submitted.observations[0]!.submitted).toBe(true);

    const graded = await operator.environments.grade({ session });
    expect(graded.reward).toBe(1);
    expect(graded.components.resolved).toBe(1);
    expect(graded.tests.length).toBeGreaterThan(0);
    expect(graded.tests.every((t) => t.passed)).toBe(true);
    expect(graded.patch).toContain('+++ b/');

    const closed = await operator.environments.close({ session });
    expect(closed.status).toBe('closed');
    expect(closed.requests).toBe(6);
    await expect(operator.environments.step({ session, calls: [{ name: 'think', arguments: { thought: 'x' } }] })).rejects.toThrow(
      /is closed; open a new one with environments.reset/,
    );
    const audit = await database.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.targetId, session));
    expect(audit.map((a) => a.action).sort()).toEqual(['environments.close', 'environments.reset']);
  });

  it('malformed calls and messages without one are answered with observations that say what was wrong', async () => {
    const { session } = await operator.environments.reset({ suite: 'repo-suite', task: TASK });
    const r = await operator.environments.step({
      session,
      calls: [
        { name: 'read_file', arguments: '{"path": ' },
        { name: 'rm_rf', arguments: {} },
        { name: 'read_file', arguments: { path: '../../etc/passwd' } },
        { name: 'view', arguments: { path: 'buildgraph/order.py', view_range: [1, 2] } },
      ],
    });
    expect(r.observations.map((o) => o.error ?? '')).toEqual([
      expect.stringContaining('not valid JSON'),
      expect.stringContaining('unknown tool "rm_rf"'),
      expect.stringMatching(/outside the workspace|escapes/),
      '',
    ]);
    expect(r.observations[3]!.content).toMatch(/^\s+1\t/); // cat -n style
    // a message with more calls than one step runs: the first 16 run, the rest are refused in one observation
    const many = await operator.environments.step({
      session,
      text: toolCallFormat('hermes').format(Array.from({ length: 20 }, (_, i) => ({ name: 'think', arguments: { thought: `step ${i}` } }))),
    });
    expect(many.observations).toHaveLength(17);
    expect(many.observations.at(-1)).toMatchObject({ name: 'error', content: expect.stringContaining('4 more tool calls were not run') });
    const none = await operator.environments.step({ session, text: 'I think I should look around first.' });
    expect(none.observations).toEqual([expect.objectContaining({ name: 'error', content: expect.stringContaining('no tool call found') })]);
    await operator.environments.close({ session });
  });

  it('bad input is refused naming the field, and only repository tasks are served', async () => {
    await expect(operator.environments.reset({ suite: 'repo-suite' })).rejects.toThrow(/name the task either by taskId, or by suite and task/);
    await expect(operator.environments.reset({ suite: 'repo-suite', task: 'no-such-task' })).rejects.toThrow(/no task "no-such-task" in suite "repo-suite"/);
    await expect(operator.environments.reset({ suite: 'builtin', task: 'py-add' })).rejects.toThrow(/no task "py-add"|the step API serves repository tasks/);
    await expect(operator.environments.reset({ suite: 'repo-suite', task: TASK, runtime: 'firecracker' as never })).rejects.toThrow(/runtime/);
    await expect(operator.environments.step({ session: '00000000-0000-4000-8000-000000000000', text: 'x' })).rejects.toThrow(/no environment session/);
    await expect(operator.environments.step({ session: '00000000-0000-4000-8000-000000000000', text: 'x', calls: [] } as never)).rejects.toThrow(
      /either calls .* or text/,
    );
    const viewer = await callerAs(database.db, 'viewer');
    await expect(viewer.environments.reset({ suite: 'repo-suite', task: TASK })).rejects.toThrow(/viewer/);
  });

  it("a session is its opener's; an idle one expires and gives its sandbox back; a step on it says so", async () => {
    const { session } = await operator.environments.reset({ suite: 'repo-suite', task: TASK, idleTimeoutS: 30 });
    // a session is its opener's: another operator can neither step, grade, read nor close it; an admin can read it
    const other = await callerAs(database.db, 'operator');
    await expect(other.environments.step({ session, text: 'x' })).rejects.toThrow(/opened by user:operator-.*only they \(or an admin\)/);
    await expect(other.environments.grade({ session })).rejects.toThrow(/only they/);
    await expect(other.environments.session({ session })).rejects.toThrow(/only they/);
    await expect(other.environments.close({ session })).rejects.toThrow(/only they/);
    expect((await (await callerAs(database.db, 'admin')).environments.session({ session })).session).toBe(session);
    // as if the trainer had gone quiet for an hour (no clock in the test: the row says so)
    await database.db
      .update(envSessions)
      .set({ lastActiveAt: sql`now() - interval '1 hour'` })
      .where(eq(envSessions.id, session));
    const ended = await untilSession(session, (s) => s.status !== 'ready');
    expect(ended).toMatchObject({ status: 'expired', reason: 'idle for more than 30 s' });
    await expect(operator.environments.step({ session, calls: [{ name: 'think', arguments: { thought: 'x' } }] })).rejects.toThrow(/is expired: idle/);
  });

  it('a session whose host stops is reported lost, never waited on; a new host serves new sessions', async () => {
    const { session } = await operator.environments.reset({ suite: 'repo-suite', task: TASK });
    const [row] = await database.db.select({ jobId: envSessions.jobId }).from(envSessions).where(eq(envSessions.id, session));
    await stopHost();
    const now = await operator.environments.session({ session });
    expect(now.status).toBe('lost');
    expect(now.reason).toMatch(/worker hosting the session stopped/);
    await expect(operator.environments.step({ session, text: 'x' })).rejects.toThrow(/is lost/);
    // the job is not retried into a second sandbox for the lost session
    const [job] = await database.db.select({ state: jobs.state }).from(jobs).where(eq(jobs.id, row!.jobId!));
    expect(['done', 'queued']).toContain(job!.state);
    // a host killed outright leaves its job running under a lease nobody renews: callers see the session lost
    const waiting = await operator.environments.reset({ suite: 'repo-suite', task: TASK, waitS: 0 });
    expect(waiting.status).toBe('starting');
    const [w] = await database.db.select({ jobId: envSessions.jobId }).from(envSessions).where(eq(envSessions.id, waiting.session));
    await database.db
      .update(jobs)
      .set({
        state: 'running',
        leaseOwner: 'killed-worker',
        leaseToken: '00000000-0000-4000-8000-000000000001',
        leaseExpiresAt: sql`now() - interval '1 second'`,
      })
      .where(eq(jobs.id, w!.jobId!));
    await expect(operator.environments.step({ session: waiting.session, text: 'x' })).rejects.toThrow(/is lost: the worker hosting the session stopped/);
    // a session no worker has taken: closing it withdraws its job; one left idle past its timeout expires and withdraws it too
    const closedEarly = await operator.environments.reset({ suite: 'repo-suite', task: TASK, waitS: 0 });
    expect((await operator.environments.close({ session: closedEarly.session })).status).toBe('closed');
    const forgotten = await operator.environments.reset({ suite: 'repo-suite', task: TASK, waitS: 0, idleTimeoutS: 30 });
    await database.db
      .update(envSessions)
      .set({ lastActiveAt: sql`now() - interval '1 hour'` })
      .where(eq(envSessions.id, forgotten.session));
    expect(await operator.environments.session({ session: forgotten.session })).toMatchObject({
      status: 'expired',
      reason: expect.stringContaining('no worker took it'),
    });
    const withdrawn = await database.db
      .select({ state: jobs.state })
      .from(envSessions)
      .innerJoin(jobs, eq(jobs.id, envSessions.jobId))
      .where(inArray(envSessions.id, [closedEarly.session, forgotten.session]));
    expect(withdrawn.map((j) => j.state)).toEqual(['cancelled', 'cancelled']);
    startHost();
    const again = await operator.environments.reset({ suite: 'repo-suite', task: TASK });
    expect(again.status).toBe('ready');
    await operator.environments.close({ session: again.session });
    // the lost session's job, if it was handed back, ends without reviving it
    expect((await operator.environments.session({ session })).status).toBe('lost');
  });

  async function untilSession(id: string, pred: (s: typeof envSessions.$inferSelect) => boolean) {
    // a safety net, not a timing claim: the host polls its session between requests
    for (let i = 0; i < 600; i++) {
      const [s] = await database.db.select().from(envSessions).where(eq(envSessions.id, id));
      if (s && pred(s)) return s;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`session ${id} did not change in 600 polls`);
  }
});

function workspaceOf(l: typeof line): Record<string, string> {
  const w = l.workspace as { files?: Record<string, string>; dir?: string };
  if (w.files) return w.files;
  throw new Error(`expected the loaded task's workspace as files, got ${JSON.stringify(Object.keys(w))}`);
}
