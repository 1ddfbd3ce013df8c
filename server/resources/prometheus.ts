import { Gauge, Registry } from 'prom-client';
import type { Overview } from './service';

/** The /resources figures as Prometheus gauges (a fresh registry per scrape: values come from the database). */
export async function prometheusText(o: Overview): Promise<{ text: string; contentType: string }> {
  const reg = new Registry();
  const g = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name: `crucible_${name}`, help, labelNames, registers: [reg] });
  const up = g('metrics_sampler_up', '1 when the metrics worker wrote a sample in the last minute');
  up.set(o.samplerRunning ? 1 : 0);
  const cpu = g('node_cpu_utilisation', 'CPU busy fraction 0..1 from /proc/stat', ['node']);
  const cpus = g('node_cpus', 'CPUs on the node', ['node']);
  const memUsed = g('node_memory_used_bytes', 'Memory in use (MemTotal - MemAvailable)', ['node']);
  const memTotal = g('node_memory_total_bytes', 'Memory on the node', ['node']);
  const gpuPresent = g('node_gpu_present', '1 when nvidia-smi reported GPUs, 0 when absent', ['node']);
  const gpuUtil = g('node_gpu_utilisation', 'GPU utilisation 0..1 from nvidia-smi', ['node', 'gpu']);
  const gpuMem = g('node_gpu_memory_used_bytes', 'GPU memory in use', ['node', 'gpu']);
  for (const n of o.nodes) {
    if (n.cpuUtilisation !== null) cpu.set({ node: n.node }, n.cpuUtilisation);
    if (n.cpus !== null) cpus.set({ node: n.node }, n.cpus);
    if (n.memoryUsedMb !== null) memUsed.set({ node: n.node }, n.memoryUsedMb * 1048576);
    if (n.memoryTotalMb !== null) memTotal.set({ node: n.node }, n.memoryTotalMb * 1048576);
    gpuPresent.set({ node: n.node }, n.gpuPresent ? 1 : 0);
    for (const x of n.gpus) {
      gpuUtil.set({ node: n.node, gpu: x.gpu }, x.utilisation);
      if (x.memoryUsedMb !== null) gpuMem.set({ node: n.node, gpu: x.gpu }, x.memoryUsedMb * 1048576);
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
  return { text: await reg.metrics(), contentType: reg.contentType };
}
