import { BwrapRuntime } from './bwrap';
import { OciRuntime } from './oci';
import type { SandboxRuntime } from './runtime';
import { SandboxError } from './types';

/**
 * Runtime names: `bwrap`; `oci` (the OCI runtime in CRUCIBLE_OCI_RUNTIME, default crun);
 * `oci:BINARY` or a bare OCI runtime name (`crun`, `runc`, `runsc`, `kata-runtime`),
 * with `gvisor` and `kata` as aliases. A runtime that is not installed is refused by
 * `check()` with what to install; nothing falls back to a weaker one.
 */
const aliases: Record<string, string> = { gvisor: 'runsc', kata: 'kata-runtime' };
const ociBinaries = new Set(['crun', 'runc', 'runsc', 'kata-runtime', 'youki']);

export function runtimeByName(name: string): SandboxRuntime {
  if (name === 'bwrap') return new BwrapRuntime();
  if (name === 'oci') return new OciRuntime(process.env.CRUCIBLE_OCI_RUNTIME ?? 'crun');
  const bare = aliases[name] ?? name;
  if (bare.startsWith('oci:')) return new OciRuntime(aliases[bare.slice(4)] ?? bare.slice(4));
  if (ociBinaries.has(bare)) return new OciRuntime(bare);
  throw new SandboxError(`unknown sandbox runtime "${name}": use bwrap, oci, oci:crun, oci:runc, oci:runsc (gVisor) or oci:kata-runtime`, 'config');
}

/** The runtime, verified to be installed (throws a SandboxError naming the package otherwise). */
export function checkedRuntime(name: string): SandboxRuntime {
  const rt = runtimeByName(name);
  rt.check();
  return rt;
}
