import type { RlMetric } from '@/core/metrics';
import { epochMs, type MetricSampleView, type SectionView } from './metric-groups';

/**
 * A run launched with a control arm (a twin with learning rate 0: same config, seed, v0,
 * tasks and sampling seeds) is read against it: the charts where "did it learn" shows get
 * the other arm as a second line. Pure so it can be tested without a browser.
 */
export const ARM_OVERLAY_METRICS = ['reward_mean', 'heldout_pass_at_1', 'heldout_pass_at_k', 'pass_rate'] as const satisfies readonly RlMetric[];

export const ARM_COLOR = '#64748b';

/** Add `other`'s samples of the overlay metrics as a second series (key "arm") to those charts. */
export function overlayArm(sections: SectionView[], other: MetricSampleView[], labels: { self: string; other: string }): SectionView[] {
  return sections.map((s) => ({
    ...s,
    charts: s.charts.map((c) => {
      if (!(ARM_OVERLAY_METRICS as readonly string[]).includes(c.name)) return c;
      const own = other.filter((x) => x.name === c.name);
      if (!own.length) return c;
      const points = new Map(c.points.map((p) => [p.x, { ...p }]));
      const armTimes: Record<number, number> = {};
      for (const x of own) {
        const step = x.step ?? 0;
        const p = points.get(step) ?? { x: step };
        // the last sample of a step wins, as on the run's own chart
        if (Number.isFinite(x.value)) p.arm = x.value;
        points.set(step, p);
        const t = epochMs(x.at);
        if (Number.isFinite(t)) armTimes[step] = Math.min(armTimes[step] ?? t, t);
      }
      const series = c.series.map((v) => (v.key === 'value' ? { ...v, label: labels.self } : v));
      return {
        ...c,
        legend: true,
        series: [...series, { key: 'arm', label: labels.other, color: ARM_COLOR }],
        points: [...points.values()].sort((a, b) => a.x - b.x),
        times: { ...c.times, arm: armTimes },
      };
    }),
  }));
}
