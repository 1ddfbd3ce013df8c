import { COMPUTE_PHASE_LABELS, type ComputePhase } from '@/core/compute';

/** CPU- or GPU-seconds as a person reads them: "0.42 s", "12.3 s", "4 min 05 s", "2.1 h". */
export function formatComputeSeconds(s: number): string {
  if (!Number.isFinite(s) || s <= 0) return '0 s';
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) {
    const whole = Math.round(s);
    return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
  }
  return `${(s / 3600).toFixed(1)} h`;
}

export type PhaseFigures = { phase: ComputePhase; cpuSeconds: number; gpuSeconds: number; jobs: number };

/** The rows a compute table shows: each phase with its share of the run's CPU; GPU only where any GPU-seconds were counted. */
export function computeRows(phases: readonly PhaseFigures[]) {
  const cpu = phases.reduce((a, p) => a + p.cpuSeconds, 0);
  const gpu = phases.reduce((a, p) => a + p.gpuSeconds, 0);
  return {
    cpuSeconds: cpu,
    gpuSeconds: gpu,
    showGpu: gpu > 0,
    rows: phases.map((p) => ({ ...p, label: COMPUTE_PHASE_LABELS[p.phase], share: cpu > 0 ? p.cpuSeconds / cpu : 0 })),
  };
}
