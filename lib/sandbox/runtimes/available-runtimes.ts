import { PROBED_RUNTIME_NAMES } from '@/core/sandbox-runtimes';
import type { RuntimeOptions } from './options';
import { runtimeByName } from './runtime-by-name';

export type RuntimeProbe = { name: string; available: boolean; reason?: string };

/**
 * Which runtimes work on this host: each probed name's `check()` (binaries, kernel, cgroups),
 * with the reason when it fails. What a sandbox host reports when it registers, so a launch
 * can refuse a tier no host has before any episode runs.
 */
export function probeRuntimes(options: RuntimeOptions): RuntimeProbe[] {
  return PROBED_RUNTIME_NAMES.map((name) => {
    try {
      runtimeByName(name, options).check();
      return { name, available: true };
    } catch (e) {
      return { name, available: false, reason: (e as Error).message };
    }
  });
}

/** The canonical name a runtime name resolves to here (`oci:runsc` → gvisor, `oci` → oci:crun). */
export function canonicalRuntimeName(name: string, options: RuntimeOptions): string {
  return runtimeByName(name, options).name;
}
