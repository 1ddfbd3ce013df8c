import { Counter, Gauge, Registry } from 'prom-client';
import type { Db } from '@/db/client';
import { RL_ITERATION_METRICS } from '@/core/metrics';
import { alertFigures, REWARD_BASELINE_ITERATIONS, type AlertFigures } from './alert-figures';
import { resourceOverview, type Overview } from './service';

/** What `GET /api/metrics` answers: the resource figures and the alert rules' inputs, read now. */
export async function metricsExposition(db: Db): Promise<{ text: string; contentType: string }> {
  const [o, a] = await Promise.all([resourceOverview(db), alertFigures(db)]);
  return prometheusText(o, a);
}

/**
 * The /resources figures, and with `a` the alert figures, as Prometheus gauges (a fresh
 * registry per scrape: values come from the database). deploy/prometheus/alerts.yml is
 * written against these names; its test checks every name it uses is here.
 */
export async function prometheusText(o: Overview, a?: AlertFigures): Promise<{ text: string; contentType: string }> {
  const reg = new Registry();
  const g = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name: `crucible_${name}`, help, labelNames, registers: [reg] });
  const up = g('metrics_sampler_up', '1 when the metrics worker wrote a sample in the last minute');
  up.set(o.samplerRunning ? 1 : 0);
  const cpu = g('node_cpu_utilisation', 'CPU busy fraction 0..1 from /proc/stat', ['node']);
  const cpus = g('node_cpus', 'CPUs on the node', ['node']);
  const memUsed = g('node_memory_used_bytes', 'Memory in use (MemTotal - MemAvailable)', ['node']);
  const memTotal = g('node_memory_total_bytes', 'Memory on the node', ['node']);
  const diskUsed = g('node_disk_used_bytes', "Used space of the filesystem holding the node's data directory", ['node']);
  const diskTotal = g('node_disk_total_bytes', "Size of the filesystem holding the node's data directory", ['node']);
  const gpuPresent = g('node_gpu_present', '1 when nvidia-smi reported GPUs, 0 when absent', ['node']);
  const gpuUtil = g('node_gpu_utilisation', 'GPU utilisation 0..1 from nvidia-smi', ['node', 'gpu']);
  const gpuMem = g('node_gpu_memory_used_bytes', 'GPU memory in use', ['node', 'gpu']);
  for (const n of o.nodes) {
    if (n.cpuUtilisation !== null) cpu.set({ node: n.node }, n.cpuUtilisation);
    if (n.cpus !== null) cpus.set({ node: n.node }, n.cpus);
    if (n.memoryUsedMb !== null) memUsed.set({ node: n.node }, n.memoryUsedMb * 1048576);
    if (n.memoryTotalMb !== null) memTotal.set({ node: n.node }, n.memoryTotalMb * 1048576);
    if (n.diskUsedMb !== null) diskUsed.set({ node: n.node }, n.diskUsedMb * 1048576);
    if (n.diskTotalMb !== null) diskTotal.set({ node: n.node }, n.diskTotalMb * 1048576);
    gpuPresent.set({ node: n.node }, n.gpuPresent ? 1 : 0);
    for (const x of n.gpus) {
      gpuUtil.set({ node: n.node, gpu: x.gpu }, x.utilisation);
      if (x.memoryUsedMb !== null) gpuMem.set({ node: n.node, gpu: x.gpu }, x.memoryUsedMb * 1048576);
    }
  }
  const part = g(
    'node_cpu_part',
    "The node's CPU by what uses it (workers, learner, sandboxes, platform, other), fractions 0..1 adding up to node_cpu_utilisation",
    ['node', 'part'],
  );
  for (const n of o.nodes) for (const [p, v] of Object.entries(n.cpuParts ?? {})) part.set({ node: n.node, part: p }, v);
  // per run and phase, counted when each job commits (run_compute): counters, so rate() gives CPUs in use
  const c = (name: string, help: string, labelNames: string[]) => new Counter({ name: `crucible_${name}`, help, labelNames, registers: [reg] });
  const runCpu = c('run_cpu_seconds_total', "CPU-seconds a run's jobs used, by phase (sampling, sandbox, grading, learning, heldout_eval, other)", [
    'run',
    'phase',
  ]);
  const runGpu = c('run_gpu_seconds_total', "GPU-seconds a run's jobs used, by phase (only where a GPU ran)", ['run', 'phase']);
  for (const r of o.compute) {
    for (const p of r.phases) {
      if (p.cpuSeconds > 0) runCpu.inc({ run: r.runId, phase: p.phase }, p.cpuSeconds);
      if (p.gpuSeconds > 0) runGpu.inc({ run: r.runId, phase: p.phase }, p.gpuSeconds);
    }
  }
  const sb = g('sandboxes', 'Live sandboxes by state', ['state']);
  for (const [state, v] of Object.entries(o.sandboxes)) sb.set({ state }, v);
  const depth = g('queue_depth', 'Queued jobs', ['tier', 'queue']);
  const running = g('jobs_running', 'Running (admitted) jobs', ['tier', 'queue']);
  for (const t of o.tiers) {
    for (const q of t.queues) {
      depth.set({ tier: t.tier, queue: q.queue }, q.queued);
      running.set({ tier: t.tier, queue: q.queue }, q.running);
    }
  }
  const cap = g('capacity', 'Capacity of running nodes', ['resource']);
  const res = g('reserve', 'Elastic reserve held back for the critical tier', ['resource']);
  for (const [r, v] of Object.entries(o.capacity)) cap.set({ resource: r }, v);
  for (const [r, v] of Object.entries(o.reserve)) res.set({ resource: r }, v);
  const runJobs = g('run_jobs_running', 'Running jobs per run', ['run']);
  const runSb = g('run_sandboxes', 'Busy sandboxes per run', ['run']);
  for (const r of o.runs) {
    runJobs.set({ run: r.run }, r.jobsRunning);
    runSb.set({ run: r.run }, r.sandboxes);
  }
  const schedUp = g('scheduler_up', '1 when a live scheduler wrote its figures in the last minute');
  schedUp.set(o.quota.status === 'live' ? 1 : 0);
  if (o.quota.status === 'live') {
    const adm = g('scheduler_admitted', 'Workloads admitted to a node, per tier', ['tier']);
    const qd = g('scheduler_queued', 'Workloads waiting for admission, per tier', ['tier']);
    for (const t of o.quota.tiers) {
      adm.set({ tier: t.tier }, t.admitted);
      qd.set({ tier: t.tier }, t.queued);
    }
    const wait = g('scheduler_waiting', 'Queued workloads by the reason they wait', ['reason']);
    for (const [reason, n] of Object.entries(o.quota.waiting)) wait.set({ reason }, n);
    const used = g('quota_used', 'Resources admitted per quota queue', ['queue', 'tier', 'resource']);
    const nominal = g('quota_nominal', 'Nominal (guaranteed) quota per queue', ['queue', 'tier', 'resource']);
    const borrowed = g('quota_borrowed', 'Admitted beyond the nominal quota, borrowed from the cohort', ['queue', 'tier', 'resource']);
    for (const q of o.quota.queues) {
      const l = { queue: q.queue, tier: q.tier, resource: q.resource };
      used.set(l, q.used);
      if (q.nominal !== null) nominal.set(l, q.nominal);
      borrowed.set(l, q.borrowed);
    }
  }
  if (a) alertGauges(g, a);
  return { text: await reg.metrics(), contentType: reg.contentType };
}

function alertGauges(g: (name: string, help: string, labelNames?: string[]) => Gauge, a: AlertFigures) {
  // per live run, labelled with its id and name (the built-in run rules' labels)
  const runLabels = ['run', 'run_name'];
  const rl = Object.fromEntries(RL_ITERATION_METRICS.map((m) => [m, g(`rl_${m}`, `The live run's newest ${m} (its latest iteration's)`, runLabels)]));
  const baseline = g(
    'rl_reward_mean_baseline',
    `Mean reward_mean of the ${REWARD_BASELINE_ITERATIONS} iterations before the newest (what RunRewardCollapse/RunRewardJump compare with)`,
    runLabels,
  );
  const tampered = g('run_tampered_episodes_1h', 'Episodes of the live run whose grader caught tampering, rewarded in the last hour', runLabels);
  const kappa = g('run_review_kappa', "Cohen's kappa of the live run's double-reviewed episodes", runLabels);
  const pairs = g('run_review_pairs', 'Double-reviewed episodes of the live run with both verdicts in', runLabels);
  for (const r of a.runs) {
    const l = { run: r.run, run_name: r.name };
    for (const [m, v] of Object.entries(r.rl)) rl[m]!.set(l, v);
    if (r.rewardBaseline !== null) baseline.set(l, r.rewardBaseline);
    tampered.set(l, r.tamperedLastHour);
    pairs.set(l, r.reviewPairs);
    if (r.reviewKappa !== null) kappa.set(l, r.reviewKappa);
  }
  const workerUp = g('worker_up', '1: the worker heartbeats; 0: lost in the last day (no heartbeat) and not replaced', ['worker', 'kind', 'node']);
  for (const w of a.workers) workerUp.set({ worker: w.worker, kind: w.kind, node: w.node }, w.up ? 1 : 0);
  const nodeUp = g('node_up', '1: a worker of the node heartbeats; 0: its workers are lost and none runs', ['node']);
  for (const n of a.nodes) nodeUp.set({ node: n.node }, n.up ? 1 : 0);
  const quarantined = g('environment_quarantined', '1 when an admin quarantined the environment (no new sandboxes start on it)', ['environment']);
  for (const e of a.environments) quarantined.set({ environment: e.environment }, e.quarantined ? 1 : 0);
  const wait = g('queue_oldest_wait_seconds', 'How long the oldest queued scheduled job of the tier has waited (0: none queued)', ['tier']);
  for (const w of a.queueWait) wait.set({ tier: w.tier }, w.oldestSeconds);
  const mismatch = g('sandbox_env_mismatches_10m', "Sandbox execs refused in the last 10 minutes because the environment's files no longer match its hash", [
    'environment',
  ]);
  for (const m of a.envMismatches) mismatch.set({ environment: m.environment }, m.count);
  g('sandbox_security_denials_10m', 'Denied egress connections and seccomp (SIGSYS) kills of sandbox execs in the last 10 minutes').set(a.securityDenials);
}
