// Minimal dependency-free SVG line charts for the simulator's report (docs/ embeds them).

export interface Line {
  name: string;
  values: number[];
  color: string;
}
export interface ChartSpec {
  title: string;
  x: number[];
  xLabel: string;
  yLabel: string;
  lines: Line[];
  yMax?: number;
  /** Format of y-axis ticks, e.g. percentages. */
  yFormat?: (v: number) => string;
}

const W = 720;
const H = 300;
const M = { l: 64, r: 150, t: 32, b: 44 };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function lineChart(spec: ChartSpec): string {
  const xs = spec.x;
  const x0 = xs[0] ?? 0;
  const x1 = xs[xs.length - 1] ?? 1;
  const finite = spec.lines.flatMap((l) => l.values.filter(Number.isFinite));
  const yMax = spec.yMax ?? niceMax(Math.max(0, ...finite));
  const fmt = spec.yFormat ?? ((v: number) => (Math.abs(v) >= 1000 ? `${(v / 1000).toFixed(v % 1000 ? 1 : 0)}k` : String(+v.toFixed(2))));
  const pw = W - M.l - M.r;
  const ph = H - M.t - M.b;
  const sx = (x: number) => M.l + (x1 === x0 ? 0 : ((x - x0) / (x1 - x0)) * pw);
  const sy = (y: number) => M.t + ph - (Math.min(y, yMax) / yMax) * ph;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.l}" y="18" font-size="13" font-weight="bold">${esc(spec.title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    const y = sy(v);
    out.push(`<line x1="${M.l}" x2="${M.l + pw}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${M.l - 6}" y="${y + 4}" text-anchor="end">${esc(fmt(v))}</text>`);
  }
  for (let i = 0; i <= 5; i++) {
    const v = x0 + ((x1 - x0) * i) / 5;
    out.push(`<text x="${sx(v).toFixed(1)}" y="${M.t + ph + 16}" text-anchor="middle">${Math.round(v)}</text>`);
  }
  out.push(`<rect x="${M.l}" y="${M.t}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  out.push(`<text x="${M.l + pw / 2}" y="${H - 8}" text-anchor="middle">${esc(spec.xLabel)}</text>`);
  out.push(`<text transform="translate(14 ${M.t + ph / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`);
  spec.lines.forEach((line, li) => {
    // Gaps (NaN: nothing to measure in that bucket) split the line.
    let d = '';
    let pen = false;
    // A value with no x (a line longer than spec.x) is a gap too.
    line.values.forEach((v, i) => {
      const x = xs[i];
      if (x === undefined || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(v).toFixed(1)}`;
      pen = true;
    });
    out.push(`<path d="${d}" fill="none" stroke="${line.color}" stroke-width="1.6"/>`);
    // A point with no measured neighbour would be invisible as a path: mark it.
    line.values.forEach((v, i) => {
      const x = xs[i];
      if (x !== undefined && Number.isFinite(v) && !Number.isFinite(line.values[i - 1] ?? NaN) && !Number.isFinite(line.values[i + 1] ?? NaN)) {
        out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(v).toFixed(1)}" r="2.5" fill="${line.color}"/>`);
      }
    });
    const ly = M.t + 12 + li * 16;
    out.push(`<line x1="${M.l + pw + 12}" x2="${M.l + pw + 30}" y1="${ly - 4}" y2="${ly - 4}" stroke="${line.color}" stroke-width="3"/>`);
    out.push(`<text x="${M.l + pw + 36}" y="${ly}">${esc(line.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
