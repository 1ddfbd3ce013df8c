/** CPU and memory as operators read them on /workers and /resources. */

/** Megabytes as "512 MB" below a gigabyte, else "1.5 GB"; "—" when unknown. */
export function formatMemoryMb(mb: number | null | undefined): string {
  if (mb == null || Number.isNaN(mb)) return '—';
  return mb < 1024 ? `${Math.round(mb)} MB` : `${(mb / 1024).toFixed(1)} GB`;
}

/** A process's CPU as % of one core ("135%" is well over one core); "—" before its first heartbeat. */
export function formatCpuPercent(pct: number | null | undefined): string {
  if (pct == null || Number.isNaN(pct)) return '—';
  return `${pct < 10 ? pct.toFixed(1) : Math.round(pct)}%`;
}
