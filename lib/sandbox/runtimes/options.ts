import path from 'node:path';
import type { Settings } from '@/core/settings';

/**
 * How this host runs sandboxes: host binaries and the optional fast paths. Passed down from
 * whoever builds the runtimes (the manager, the CLI) instead of each module reading the
 * environment, so a test can run one manager without the launcher next to another with it.
 */
export type RuntimeOptions = {
  /** the bubblewrap binary (CRUCIBLE_BWRAP) */
  bwrap: string;
  /** mount, check and fork through the host-side launcher, launcher.c (CRUCIBLE_SANDBOX_LAUNCHER) */
  launcher: boolean;
  /** keep a PID-1 supervisor in each bwrap sandbox instead of one bwrap per exec (CRUCIBLE_SANDBOX_SUPERVISOR) */
  supervisor: boolean;
  /** gVisor's runsc, which serves the `gvisor` runtime (CRUCIBLE_RUNSC) */
  runsc: string;
  /** QEMU for the `microvm` runtime (default qemu-system-x86_64 on PATH) */
  qemu?: string;
  /** where scripts/microvm-kernel.sh put the microVM's guest kernel (default `<CRUCIBLE_DATA_DIR>/microvm/kernel`) */
  microvmKernel: string;
  /** what the runtime name `oci` means; unset: crun (CRUCIBLE_OCI_RUNTIME, checked when used) */
  ociRuntime?: string;
  /** compiler for the two C programs (CC) */
  cc: string;
};

/** The runtime options from settings (entry points pass `settings()`, tests `parseSettings(...)`). */
export function runtimeOptions(s: Settings): RuntimeOptions {
  return {
    bwrap: s.CRUCIBLE_BWRAP,
    launcher: s.CRUCIBLE_SANDBOX_LAUNCHER,
    supervisor: s.CRUCIBLE_SANDBOX_SUPERVISOR,
    runsc: s.CRUCIBLE_RUNSC,
    qemu: 'qemu-system-x86_64',
    microvmKernel: path.resolve(s.CRUCIBLE_DATA_DIR, 'microvm', 'kernel'),
    ociRuntime: s.CRUCIBLE_OCI_RUNTIME,
    cc: s.CC,
  };
}
