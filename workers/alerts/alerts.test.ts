import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_THRESHOLDS } from '@/core/alerts';
import { alerts, auditLog, episodes, metricSamples, rewards, workers } from '@/db/schema';
import { createSilence, endSilence, listAlerts, listDeliveries } from '@/server/alerts/service';
import { createRun, transitionRun } from '@/server/runs/service';
import { markLostWorkers } from '@/workers/process/registration';
import { inProcessRl, TINY_RL_ENV, untilRun } from '@/workers/rl/rl.testkit';
import { deliverNotifications } from './deliver';
import { evaluateAlerts, type AlertEvaluation } from './evaluate';

/**
 * Alerting end to end on a real RL run (real Postgres, sandboxes, ONNX policy, the learner's own
 * metrics) and a real HTTP receiver. Time is the evaluator's `now`, passed explicitly: the
 * `for:` durations and group interval are stepped through, never waited for.
 */

type Received = {
  path: string;
  key: string;
  body: { status: string; groupLabels: Record<string, string>; alerts: { status: string; labels: Record<string, string> }[]; text?: string };
};
const received: Received[] = [];
let flakyCalls = 0;
const receiver = http.createServer((req, res) => {
  let data = '';
  req.on('data', (c) => (data += c));
  req.on('end', () => {
    if (req.url === '/flaky' && flakyCalls++ === 0) {
      res.writeHead(503).end('try later');
      return;
    }
    received.push({ path: req.url ?? '', key: String(req.headers['idempotency-key']), body: JSON.parse(data) });
    res.writeHead(200).end('ok');
  });
});

const rl = await inProcessRl('alerts', TINY_RL_ENV);
const { db } = rl;
let o: AlertEvaluation;
beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  o = {
    thresholds: DEFAULT_ALERT_THRESHOLDS,
    receivers: [
      { name: 'hook', url: `${base}/hook`, format: 'json' },
      { name: 'flaky', url: `${base}/flaky`, format: 'slack' },
    ],
    groupIntervalS: 300,
    consoleUrl: 'http://console.test',
  };
  rl.start();
});
afterAll(async () => {
  await rl.stop();
  receiver.close();
});

/** Evaluate and deliver at `t` seconds after `t0`, as the maintenance worker's check does. */
let t0: Date;
const at = (s: number) => new Date(t0.getTime() + s * 1000);
async function tick(s: number) {
  const e = await evaluateAlerts(db, at(s), o);
  expect(e.errors).toEqual([]);
  await deliverNotifications(db, at(s), { receivers: o.receivers, consoleUrl: o.consoleUrl });
  return e;
}
const hook = (alertname: string) => received.filter((r) => r.path === '/hook' && r.body.groupLabels.alertname === alertname);
const stateOf = async (rule: string) => (await db.select({ state: alerts.state }).from(alerts).where(eq(alerts.rule, rule))).map((r) => r.state).sort();

describe('alerts on a real run', () => {
  it('fire after for:, group, deduplicate, inhibit by a lost node, silence and un-silence, resolve; each group delivered once per change', async () => {
    // A run whose own threshold makes its real entropy an alert (the cluster default would not).
    const run = await createRun(
      db,
      {
        name: 'alerting',
        config: {
          iterations: 2,
          tasksPerIteration: 2,
          groupSize: 2,
          maxTurns: 1,
          concurrency: 1,
          seed: 5,
          alerts: { thresholds: { entropyMin: 1000 }, off: ['RunRewardCollapse', 'RunRewardJump'] },
        },
      },
      'test',
    );
    const hasEntropy = async () =>
      (
        await db
          .select({ n: sql<number>`count(*)::int` })
          .from(metricSamples)
          .where(and(eq(metricSamples.runId, run.id), eq(metricSamples.name, 'entropy')))
      )[0]!.n > 0;
    await untilRun(db, run.id, "the first iteration's learner metrics", async (r) => r.status === 'running' && (await hasEntropy()), 240_000);
    await transitionRun(db, run.id, 'pause', 'test');
    t0 = new Date();

    // for: 120 s — pending, still pending at 119 s, firing at 120 s; only then notified.
    expect((await tick(0)).pending).toBeGreaterThanOrEqual(1);
    expect(await stateOf('RunEntropyCollapse')).toEqual(['pending']);
    await tick(119);
    expect(await stateOf('RunEntropyCollapse')).toEqual(['pending']);
    expect(received).toEqual([]);
    await tick(120);
    expect(await stateOf('RunEntropyCollapse')).toEqual(['firing']);
    expect(hook('RunEntropyCollapse').map((r) => [r.body.status, r.body.groupLabels.run, r.body.alerts.length])).toEqual([['firing', run.id, 1]]);
    // the flaky receiver answered 503: retried after its backoff (10 s), not before
    expect(received.filter((r) => r.path === '/flaky')).toEqual([]);
    await tick(125);
    expect(received.filter((r) => r.path === '/flaky')).toEqual([]);
    await tick(135); // deduplicated: same alert, no new notification; the retry goes out
    expect(hook('RunEntropyCollapse')).toHaveLength(1);
    const slack = received.filter((r) => r.path === '/flaky');
    expect(slack).toHaveLength(1);
    expect(slack[0]!.body.text).toContain('[FIRING:1]');
    const flakyLog = (await listDeliveries(db)).find((d) => d.receiver === 'flaky' && d.groupKey.includes('RunEntropyCollapse'))!;
    expect(flakyLog).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(flakyLog.attemptLog.map((a) => [a.ok, a.httpStatus])).toEqual([
      [false, 503],
      [true, 200],
    ]);

    // Three tampered episodes: three alerts, one group, one notification.
    const eps = await db
      .select({ id: episodes.id })
      .from(episodes)
      .innerJoin(rewards, eq(rewards.episodeId, episodes.id))
      .where(eq(episodes.runId, run.id))
      .orderBy(asc(episodes.sampleIndex), asc(episodes.groupIndex));
    expect(eps.length).toBeGreaterThanOrEqual(4);
    const tamper = (id: string) =>
      db
        .update(rewards)
        .set({ components: sql`${rewards.components} || '{"tampered": 1}'::jsonb` })
        .where(eq(rewards.episodeId, id));
    for (const e of eps.slice(0, 3)) await tamper(e.id);
    await tick(140);
    await tick(145);
    expect(hook('RunTamperedReward').map((r) => [r.body.status, r.body.alerts.length])).toEqual([['firing', 3]]);
    expect(
      await db
        .select({ n: sql<number>`count(*)::int` })
        .from(alerts)
        .where(eq(alerts.rule, 'RunTamperedReward')),
    ).toEqual([{ n: 3 }]);

    // A node whose every worker is lost: NodeLost inhibits its workers' alerts; another node's lost worker is notified.
    const stale = sql`now() - interval '1 hour'`;
    await db.insert(workers).values([
      {
        id: 'wa1',
        kind: 'jobs',
        hostname: 'node-a',
        pid: 1,
        capacity: { cpus: 2, memoryMb: 1, gpuCount: 0, gpuMemoryMb: 0, diskMb: 1 },
        heartbeatAt: stale,
        startedAt: stale,
      },
      {
        id: 'wa2',
        kind: 'sandbox',
        hostname: 'node-a',
        pid: 2,
        capacity: { cpus: 2, memoryMb: 1, gpuCount: 0, gpuMemoryMb: 0, diskMb: 1 },
        heartbeatAt: stale,
        startedAt: stale,
      },
      {
        id: 'wb1',
        kind: 'jobs',
        hostname: 'node-b',
        pid: 3,
        capacity: { cpus: 2, memoryMb: 1, gpuCount: 0, gpuMemoryMb: 0, diskMb: 1 },
        heartbeatAt: stale,
        startedAt: stale,
      },
      { id: 'wb2', kind: 'metrics', hostname: 'node-b', pid: 4, capacity: { cpus: 2, memoryMb: 1, gpuCount: 0, gpuMemoryMb: 0, diskMb: 1 } },
    ]);
    expect((await markLostWorkers(db, 10_000)).map((w) => w.id).sort()).toEqual(['wa1', 'wa2', 'wb1']);
    await tick(150);
    expect(hook('NodeLost')).toEqual([]);
    await tick(210);
    const lost = await listAlerts(db, { state: 'firing' });
    const nodeLost = lost.find((a) => a.rule === 'NodeLost')!;
    expect(nodeLost.labels.node).toBe('node-a');
    expect(lost.filter((a) => a.rule === 'WorkerLost' && a.labels.node === 'node-a').map((a) => a.inhibitedBy)).toEqual([
      nodeLost.fingerprint,
      nodeLost.fingerprint,
    ]);
    expect(hook('NodeLost').map((r) => [r.body.groupLabels.node, r.body.alerts.length])).toEqual([['node-a', 1]]);
    expect(hook('WorkerLost').map((r) => [r.body.groupLabels.node, r.body.alerts.map((a) => a.labels.worker)])).toEqual([['node-b', ['wb1']]]);

    // Silence the run's tamper alerts; a fourth tampered episode is held back, then sent when the silence ends.
    const silence = await createSilence(
      db,
      { matchers: { alertname: 'RunTamperedReward', run: run.id }, reason: 'investigating the grader', hours: 1 },
      'user:ops',
      at(220),
    );
    await tamper(eps[3]!.id);
    await tick(500);
    const muted = (await listAlerts(db, { runId: run.id })).filter((a) => a.rule === 'RunTamperedReward');
    expect(muted).toHaveLength(4);
    expect(muted.every((a) => a.silencedBy === silence.id && a.silenceReason === 'investigating the grader')).toBe(true);
    expect(hook('RunTamperedReward')).toHaveLength(1);
    await endSilence(db, { id: silence.id }, 'user:ops', at(600));
    await expect(endSilence(db, { id: silence.id }, 'user:ops', at(601))).rejects.toThrow(/no active silence/);
    await tick(610);
    expect(hook('RunTamperedReward').map((r) => [r.body.status, r.body.alerts.length])).toEqual([
      ['firing', 3],
      ['firing', 4],
    ]);
    const audits = await db
      .select({ action: auditLog.action, actor: auditLog.actor })
      .from(auditLog)
      .where(sql`${auditLog.action} like 'alert.%'`)
      .orderBy(asc(auditLog.seq));
    expect(audits).toEqual([
      { action: 'alert.silence', actor: 'user:ops' },
      { action: 'alert.unsilence', actor: 'user:ops' },
    ]);

    // The run finishes: its alerts resolve, one resolve notification per group.
    await transitionRun(db, run.id, 'resume', 'test');
    const done = await untilRun(db, run.id, 'completion', (r) => r.status === 'completed' || r.status === 'failed', 240_000);
    expect(done.status).toBe('completed');
    await tick(700);
    await tick(710);
    expect(await stateOf('RunEntropyCollapse')).toEqual(['resolved']);
    expect(hook('RunEntropyCollapse').map((r) => r.body.status)).toEqual(['firing', 'resolved']);
    expect(hook('RunTamperedReward').map((r) => r.body.status)).toEqual(['firing', 'firing', 'resolved']);
    expect(hook('RunTamperedReward')[2]!.body.alerts.every((a) => a.status === 'resolved')).toBe(true);

    // Exactly once per group notification: every (group, number) reached each receiver once.
    const keys = received.filter((r) => r.path === '/hook').map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    const groups = new Set(
      received.filter((r) => r.path === '/hook').map((r) => `${r.body.groupLabels.alertname}/${r.body.groupLabels.run ?? r.body.groupLabels.node}`),
    );
    expect([...groups].sort()).toEqual([`RunEntropyCollapse/${run.id}`, `RunTamperedReward/${run.id}`, 'NodeLost/node-a', 'WorkerLost/node-b'].sort());
  }, 600_000);
});
