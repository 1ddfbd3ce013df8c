import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Settings } from '@/core/settings';
import { meterGpuRuns } from '@/lib/compute/meter';

export { ort };

// onnxruntime logs a failed CUDA load at error level before throwing; we report the
// fallback ourselves (once, with the reason), so keep its own log quiet by default.
ort.env.logLevel = 'fatal';

/** The process's onnxruntime settings: CRUCIBLE_POLICY_ORT_LOG and CRUCIBLE_POLICY_THREADS. */
export type OrtSettings = Pick<Settings, 'CRUCIBLE_POLICY_ORT_LOG' | 'CRUCIBLE_POLICY_THREADS'>;
let sessionThreads: number | undefined;

/**
 * Apply the settings to this process's onnxruntime (its log level is process-wide, like the
 * threads default). Called by entry points (worker mains, CLI commands, benchmarks) with
 * `settings()`; without it the log is quiet and sessions use the CPUs, at most 8.
 */
export function configureOnnxRuntime(s: OrtSettings): void {
  ort.env.logLevel = s.CRUCIBLE_POLICY_ORT_LOG;
  sessionThreads = s.CRUCIBLE_POLICY_THREADS;
}
export type Provider = 'cuda' | 'cpu';

export type LoadedSession = { session: ort.InferenceSession; provider: Provider };

export type SessionOptions = {
  /** Providers to try in order; the default tries CUDA first and falls back to the CPU. */
  providers?: Provider[];
  /** Called when a provider fails to load, with the reason (the fallback is logged here). */
  onFallback?: (provider: Provider, reason: string) => void;
  threads?: number;
};

const defaultFallbackLog = (p: Provider, reason: string) => {
  if (!warned.has(p)) {
    warned.add(p);
    console.warn(`policy: execution provider ${p} unavailable (${reason.split('\n')[0]}); falling back to the next provider`);
  }
};
const warned = new Set<Provider>();

/**
 * Create a session from ModelProto bytes on the first provider that loads. onnxruntime-node
 * throws at create time when a provider's shared library is missing, which is the signal.
 * `model` may depend on the provider (a mixed-precision graph is built per provider: see
 * onnx/mixed-precision.ts); it is then built for each provider tried.
 */
export async function createSession(model: Uint8Array | ((provider: Provider) => Uint8Array), opts: SessionOptions = {}): Promise<LoadedSession> {
  const providers = opts.providers ?? ['cuda', 'cpu'];
  const onFallback = opts.onFallback ?? defaultFallbackLog;
  let lastError: unknown;
  for (const [i, provider] of providers.entries()) {
    try {
      const session = await ort.InferenceSession.create(typeof model === 'function' ? model(provider) : model, {
        executionProviders: [provider],
        graphOptimizationLevel: 'all',
        intraOpNumThreads: opts.threads ?? defaultThreads(),
        interOpNumThreads: 1,
        logSeverityLevel: 3,
      });
      // on a GPU, each run's time is the calling job's GPU-seconds (lib/compute/meter.ts)
      return { session: provider === 'cuda' ? meterGpuRuns(session) : session, provider };
    } catch (e) {
      // The CPU provider always exists, so a failure there is the model's fault: surface it.
      if (provider === 'cpu') throw e;
      lastError = e;
      if (i < providers.length - 1) onFallback(provider, (e as Error).message);
    }
  }
  throw new Error(`no execution provider loaded (${providers.join(', ')}): ${(lastError as Error)?.message}`);
}

/**
 * Where onnxruntime-node's CUDA provider library would be, and whether it is there. The npm
 * package ships only the CPU provider; the CUDA one is downloaded at install time with
 * `--onnxruntime-node-install=cuda12` (and needs an NVIDIA driver + CUDA 12 at run time).
 * Used to explain a fallback and to choose which provider tests apply; the actual decision
 * is always whether a session loads.
 */
export function cudaProviderLibrary(): { path: string; present: boolean } {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('onnxruntime-node/package.json'));
  const file = path.join(pkg, 'bin', 'napi-v6', process.platform, process.arch, 'libonnxruntime_providers_cuda.so');
  return { path: file, present: existsSync(file) };
}

export function defaultThreads(): number {
  if (sessionThreads !== undefined) return sessionThreads;
  return Math.max(1, Math.min(os.availableParallelism(), 8));
}

export function f32(data: Float32Array | number[], dims: number[]): ort.Tensor {
  return new ort.Tensor('float32', data instanceof Float32Array ? data : Float32Array.from(data), dims);
}

export function i64(data: ArrayLike<number>, dims: number[]): ort.Tensor {
  return new ort.Tensor('int64', BigInt64Array.from(Array.from(data, (x) => BigInt(x))), dims);
}
