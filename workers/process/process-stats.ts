/** A worker process's own use, as its heartbeat reports it (`workers.cpu_percent`, `workers.rss_mb`). */
export type ProcessStats = { cpuPercent: number; rssMb: number };

type Clock = { cpuUsage: () => NodeJS.CpuUsage; hrtimeNs: () => bigint; rssBytes: () => number };

const processClock: Clock = {
  cpuUsage: () => process.cpuUsage(),
  hrtimeNs: () => process.hrtime.bigint(),
  rssBytes: () => process.memoryUsage.rss(),
};

/**
 * Returns a sampler of this process's CPU (user + system time over wall time since the
 * previous call, as % of one core: 250 means two and a half cores busy) and resident memory.
 * The first call covers the time since the sampler was made. Per process, not per node: a
 * node's totals are the sum over its workers (the node's own figure is the metrics worker's).
 */
export function processStatsSampler(clock: Clock = processClock): () => ProcessStats {
  let lastCpu = clock.cpuUsage();
  let lastAt = clock.hrtimeNs();
  return () => {
    const cpu = clock.cpuUsage();
    const at = clock.hrtimeNs();
    const busyUs = cpu.user - lastCpu.user + (cpu.system - lastCpu.system);
    const elapsedUs = Number(at - lastAt) / 1_000;
    lastCpu = cpu;
    lastAt = at;
    const cpuPercent = elapsedUs > 0 ? Math.max(0, (busyUs / elapsedUs) * 100) : 0;
    return { cpuPercent: Math.round(cpuPercent * 10) / 10, rssMb: Math.round((clock.rssBytes() / (1024 * 1024)) * 10) / 10 };
  };
}
