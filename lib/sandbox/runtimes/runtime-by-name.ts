import { ociRuntimeSetting, runtimeTarget, sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { BwrapRuntime } from './bwrap';
import { GvisorRuntime } from './gvisor';
import { MicrovmRuntime } from './microvm';
import { OciRuntime } from './oci';
import type { RuntimeOptions } from './options';
import type { SandboxRuntime } from './sandbox-runtime';
import { SandboxError } from '../types';

/**
 * Runtime names come from the fixed list in core/sandbox-runtimes.ts: `bwrap`; `oci` (the
 * OCI runtime in CRUCIBLE_OCI_RUNTIME, default crun); `oci:crun`, `oci:runc`, `oci:runsc`,
 * `oci:kata-runtime`, `oci:youki`, the bare binaries, and `gvisor`/`kata` as aliases.
 * Every runsc name is served by `GvisorRuntime` (gvisor.ts), whose name is `gvisor`;
 * `microvm` by `MicrovmRuntime` (microvm.ts), a QEMU microVM.
 * Anything else (`oci:echo`, `oci:/bin/sh`) is refused: it would run that host binary as
 * root. A runtime that is not installed is refused by `check()` with what to install;
 * nothing falls back to a weaker one.
 */
export function runtimeByName(name: string, options: RuntimeOptions): SandboxRuntime {
  const parsed = sandboxRuntimeName.safeParse(name);
  if (!parsed.success) throw new SandboxError(parsed.error.issues[0]!.message, 'config');
  const target = runtimeTarget(parsed.data);
  if (target.kind === 'bwrap') return new BwrapRuntime(options);
  if (target.kind === 'microvm') return new MicrovmRuntime(options);
  let binary: string;
  if (target.kind === 'oci') binary = target.binary;
  else {
    const setting = ociRuntimeSetting.safeParse(options.ociRuntime);
    if (!setting.success) throw new SandboxError(setting.error.issues[0]!.message, 'config');
    binary = setting.data;
  }
  // runsc is gVisor: its own runtime (warm sandboxes, platform detection), named `gvisor`
  return binary === 'runsc' ? new GvisorRuntime(options) : new OciRuntime(binary, options);
}

/** The runtime, verified to be installed (throws a SandboxError naming the package otherwise). */
export function checkedRuntime(name: string, options: RuntimeOptions): SandboxRuntime {
  const rt = runtimeByName(name, options);
  rt.check();
  return rt;
}
