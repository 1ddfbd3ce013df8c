import { afterEach, describe, expect, it, vi } from 'vitest';
import { Graph } from './onnx/graph';
import * as o from './onnx/ops';
import { Policy } from './policy';
import { createSession, cudaProviderLibrary } from './onnx-session';

const model = () => {
  const g = new Graph('tiny');
  g.output(o.relu(g.input('x', 'float32', [2])), 'y');
  return g.toBytes();
};

// The fallback tests need a machine where CUDA cannot load: this package install has no
// CUDA provider library (the CI/dev machines). On a GPU machine with it they are skipped,
// and the bench's --gpu run is what exercises CUDA.
const noCuda = !cudaProviderLibrary().present;

describe('execution providers', () => {
  afterEach(() => vi.restoreAllMocks());

  it.runIf(noCuda)(
    'without the CUDA provider library, the default [cuda, cpu] falls back to the CPU, logs the reason once, and every step records cpu',
    async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      // No providers option: the default order is what is under test.
      const p = Policy.create({ model: { dModel: 16, nLayers: 1, nHeads: 2, dMlp: 32, maxSeqLen: 16 } }, { threads: 1 });
      const t = p.tokenizer.encode('fallback', { bos: true });
      const steps = [];
      for (let i = 0; i < 2; i++) steps.push(await p.trainStep([{ tokens: t, lossMask: t.map((_, k) => (k ? 1 : 0)) }], { kind: 'sft' }));
      await p.sample(['x'], { maxNewTokens: 2 }); // two more sessions (prefill, decode): no new log lines
      expect(steps.map((s) => s.provider)).toEqual(['cpu', 'cpu']);
      expect(p.provider).toBe('cpu');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/execution provider cuda unavailable \(.*shared library.*\); falling back/);
      await p.release();
    },
  );

  it.runIf(noCuda)('reports the CUDA failure reason to a fallback handler, quickly', async () => {
    const reasons: string[] = [];
    const t0 = performance.now();
    const { session, provider } = await createSession(model(), { onFallback: (p, why) => reasons.push(`${p}: ${why}`) });
    expect(provider).toBe('cpu');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^cuda: .*Failed to load shared library/);
    expect(performance.now() - t0).toBeLessThan(5_000); // the failed attempt costs little
    await session.release();
  });

  it.runIf(noCuda)('CUDA alone fails with an error naming the providers tried', async () => {
    const fallbacks: string[] = [];
    await expect(createSession(model(), { providers: ['cuda'], onFallback: (p) => fallbacks.push(p) })).rejects.toThrow(
      /no execution provider loaded \(cuda\)/,
    );
    expect(fallbacks).toEqual([]); // nothing to fall back to, so nothing is logged as a fallback
  });

  it('CPU only never tries CUDA', async () => {
    const fallbacks: string[] = [];
    const { session, provider } = await createSession(model(), { providers: ['cpu'], onFallback: (p) => fallbacks.push(p) });
    expect(provider).toBe('cpu');
    expect(fallbacks).toEqual([]);
    await session.release();
  });

  it('surfaces a broken model instead of reporting a missing provider', async () => {
    const g = new Graph('broken');
    const x = g.input('x', 'float32', [2]);
    g.output(g.node('NoSuchOp', [x], [{ dtype: 'float32', shape: [2] }])[0]!, 'y');
    await expect(createSession(g.toBytes(), { providers: ['cpu'] })).rejects.toThrow(/NoSuchOp/);
  });
});

describe('SessionCache', () => {
  it('keeps at most maxSessions, releasing the least recently used; a released one is rebuilt on its next use', async () => {
    const { SessionCache } = await import('./session-cache');
    const cache = new SessionCache({ maxSessions: 2 });
    const builds: string[] = [];
    const get = (key: string) =>
      cache.get(
        key,
        () => {
          builds.push(key);
          return model();
        },
        { providers: ['cpu'], threads: 1 },
      );
    const a = await get('a');
    await get('b');
    await get('a'); // a is now the most recent: b goes first
    await get('c');
    expect(cache.size).toBe(2);
    await get('a');
    expect(builds).toEqual(['a', 'b', 'c']);
    await get('b'); // evicted: built again, and c (least recent) goes
    expect(builds).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
    const y = await a.session.run({ x: (await import('./onnx-session')).f32([-1, 2], [2]) });
    expect(Array.from(y.y!.data as Float32Array)).toEqual([0, 2]); // a was never released
    await cache.release();
    expect(cache.size).toBe(0);
  });
});
