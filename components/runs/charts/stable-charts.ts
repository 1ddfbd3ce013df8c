import type { ChartSpec, SectionView } from '../metric-groups';

/**
 * A chart's content as one number (FNV-1a over its name, series, flags, every point and
 * every recorded time), so a panel whose data did not change between two polls can keep its
 * previous object and skip drawing again.
 */
export function chartSignature(c: ChartSpec): number {
  let h = 0x811c9dc5;
  const mix = (s: string) => {
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  };
  const num = (v: number) => mix(String(v));
  mix(c.name);
  mix(c.help ?? '');
  mix(`${c.band ? 1 : 0}${c.legend ? 1 : 0}${c.downsampled ? 1 : 0}`);
  for (const s of c.series) mix(`|${s.key}\u0000${s.label}\u0000${s.dashed ? 1 : 0}\u0000${s.color ?? ''}`);
  for (const b of c.bands ?? []) mix(`|${b.key}\u0000${b.of}\u0000${b.color}\u0000${b.label}`);
  for (const p of c.points) {
    mix(';');
    for (const k in p) {
      const v = p[k];
      mix(k);
      if (Array.isArray(v)) {
        num(v[0]);
        num(v[1]);
      } else if (v !== undefined) num(v);
    }
  }
  for (const k in c.times ?? {}) {
    mix(`#${k}`);
    const t = c.times![k]!;
    for (const x in t) {
      mix(x);
      num(t[x]!);
    }
  }
  return h >>> 0;
}

export type ChartCache = Map<string, { sig: number; chart: ChartSpec }>;

/**
 * `sections` with every chart whose content equals the cached one replaced by the cached
 * object (keyed by section and chart name), and the cache for the next call. A live page
 * re-lays its charts on every poll; the panels that did not change then keep their props and
 * React skips them.
 */
export function reuseUnchanged(sections: SectionView[], cache: ChartCache): { sections: SectionView[]; cache: ChartCache } {
  const next: ChartCache = new Map();
  const out = sections.map((s) => ({
    ...s,
    charts: s.charts.map((c) => {
      const key = `${s.title}\u0000${c.name}`;
      const sig = chartSignature(c);
      const prev = cache.get(key);
      const chart = prev && prev.sig === sig ? prev.chart : c;
      next.set(key, { sig, chart });
      return chart;
    }),
  }));
  return { sections: out, cache: next };
}
