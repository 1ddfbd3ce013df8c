import { cgroupLayout } from '../limits/cgroup';
import type { Enforcement } from '../types';

/** How this host's cgroups enforce memory, CPU and process limits (what every runtime reports). */
export function cgroupEnforcement(): 'cgroup-v2' | 'cgroup-v1' | 'none' {
  const { mode } = cgroupLayout();
  return mode === 'v2' ? 'cgroup-v2' : mode === 'v1' ? 'cgroup-v1' : 'none';
}

/**
 * What a runtime built on the host kernel's namespaces, seccomp and cgroups enforces (bwrap, OCI,
 * gVisor's host side); each adds how it bounds the disk, which host uid runs the code and, where
 * it is not the host's, the kernel.
 */
export function namespacedEnforcement(own: Pick<Enforcement, 'disk' | 'hostUid'> & Partial<Enforcement>): Enforcement {
  const mode = cgroupEnforcement();
  return {
    namespaces: ['user', 'pid', 'net', 'mount', 'ipc', 'uts', 'cgroup'],
    readOnlyRoot: true,
    seccomp: true,
    network: 'loopback',
    memory: mode,
    cpu: mode,
    pids: mode,
    ...own,
  };
}
