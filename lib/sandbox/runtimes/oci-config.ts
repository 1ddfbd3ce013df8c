import { ALLOWED_SOCKET_FAMILIES, CLONE_NAMESPACE_FLAGS, deniedSyscalls, hostSeccompArch } from './seccomp';
import type { Limits } from '../types';

/** Container uid/gid 0..65535 map to host 100000..165535; the command runs as 1000. */
export const OCI_HOST_ID_BASE = 100_000;
export const OCI_SANDBOX_UID = 1000;

export type OciConfigInput = {
  rootfs: string;
  work: string;
  tmp: string;
  cmd: string[];
  env: Record<string, string>;
  cwd: string;
  limits: Limits;
  /** relative cgroup path: runtimes nest it under their own (i.e. our sandbox's) cgroup */
  cgroupsPath: string;
  /**
   * For gVisor (gvisor.ts), whose own kernel applies the seccomp policy and counts
   * processes: no clone3 rule (it has no clone3 and answers ENOSYS itself, while its
   * seccomp turns every errno into EPERM, which would break thread creation), and
   * RLIMIT_NPROC as the pids limit (the host group's pids also count gVisor's own threads).
   */
  gvisor?: boolean;
  /**
   * A warm gVisor sandbox's PID 1: the host directory holding the supervisor, bound
   * read-only at /run (every environment has that empty directory; the root is read-only,
   * so a mount point cannot be created). The supervisor runs as container uid 0 with only
   * CAP_KILL/SETUID/SETGID and starts each command as uid 1000 (supervisor.c, --user).
   */
  supervisorDir?: string;
};

/** Where a warm gVisor sandbox's supervisor directory is mounted. */
export const OCI_SUPERVISOR_MOUNT = '/run';

/** The seccomp policy of seccomp.ts in the OCI (libseccomp) form. */
function ociSeccomp(gvisor: boolean) {
  const arch = hostSeccompArch();
  const names = deniedSyscalls(arch).filter((n) => /^[a-z_0-9]+$/.test(n));
  const nsFlags: number[] = [];
  for (let bit = 0; bit < 32; bit++) if (CLONE_NAMESPACE_FLAGS & (1 << bit)) nsFlags.push((1 << bit) >>> 0);
  // socket families: libseccomp ORs rules, so "not unix/inet/inet6" is every gap between
  // the allowed values (one EQ rule each) plus everything above the highest; a value with
  // high bits set is above it too, so nothing the kernel would read as an allowed int slips by
  const allowed = [...ALLOWED_SOCKET_FAMILIES];
  const top = Math.max(...allowed);
  const refusedBelow = Array.from({ length: top }, (_, f) => f).filter((f) => !allowed.includes(f as never));
  const family = (args: Record<string, unknown>) => ({
    names: ['socket', 'socketpair'],
    action: 'SCMP_ACT_ERRNO',
    errnoRet: 97,
    args: [{ index: 0, ...args }],
  });
  return {
    defaultAction: 'SCMP_ACT_ALLOW',
    architectures: [arch === 'x86_64' ? 'SCMP_ARCH_X86_64' : 'SCMP_ARCH_AARCH64'],
    syscalls: [
      { names, action: 'SCMP_ACT_ERRNO', errnoRet: 1 },
      ...(gvisor ? [] : [{ names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 }]),
      // libseccomp ORs rules for the same syscall: any namespace flag set → EPERM
      ...nsFlags.map((f) => ({
        names: ['clone'],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: 1,
        args: [{ index: 0, value: f, valueTwo: f, op: 'SCMP_CMP_MASKED_EQ' }],
      })),
      ...refusedBelow.map((f) => family({ value: f, op: 'SCMP_CMP_EQ' })),
      family({ value: top, op: 'SCMP_CMP_GT' }),
    ],
  };
}

/** An OCI runtime-spec config.json: read-only root, every namespace, no capabilities. */
export function ociConfig(i: OciConfigInput): Record<string, unknown> {
  const mem = i.limits.memoryMb * 1024 * 1024;
  const noCaps = { bounding: [], effective: [], inheritable: [], permitted: [], ambient: [] };
  const supervisorCaps = ['CAP_KILL', 'CAP_SETUID', 'CAP_SETGID'];
  const sup = i.supervisorDir !== undefined;
  return {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: sup ? { uid: 0, gid: 0 } : { uid: OCI_SANDBOX_UID, gid: OCI_SANDBOX_UID },
      args: i.cmd,
      env: Object.entries(i.env).map(([k, v]) => `${k}=${v}`),
      cwd: i.cwd,
      capabilities: sup ? { ...noCaps, bounding: supervisorCaps, effective: supervisorCaps, permitted: supervisorCaps } : noCaps,
      rlimits: [
        { type: 'RLIMIT_NOFILE', hard: 4096, soft: 4096 },
        { type: 'RLIMIT_CORE', hard: 0, soft: 0 },
        { type: 'RLIMIT_FSIZE', hard: i.limits.diskMb * 1024 * 1024, soft: i.limits.diskMb * 1024 * 1024 },
        ...(i.gvisor ? [{ type: 'RLIMIT_NPROC', hard: i.limits.pids, soft: i.limits.pids }] : []),
      ],
      noNewPrivileges: true,
    },
    root: { path: i.rootfs, readonly: true },
    hostname: 'sandbox',
    mounts: [
      { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
      { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
      { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620'] },
      { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'] },
      { destination: '/work', type: 'bind', source: i.work, options: ['rbind', 'rw', 'nosuid', 'nodev'] },
      { destination: '/tmp', type: 'bind', source: i.tmp, options: ['rbind', 'rw', 'nosuid', 'nodev'] },
      ...(sup ? [{ destination: OCI_SUPERVISOR_MOUNT, type: 'bind', source: i.supervisorDir, options: ['rbind', 'ro', 'nosuid', 'nodev'] }] : []),
    ],
    linux: {
      namespaces: ['pid', 'network', 'ipc', 'uts', 'mount', 'user', 'cgroup'].map((type) => ({ type })),
      uidMappings: [{ containerID: 0, hostID: OCI_HOST_ID_BASE, size: 65536 }],
      gidMappings: [{ containerID: 0, hostID: OCI_HOST_ID_BASE, size: 65536 }],
      cgroupsPath: i.cgroupsPath,
      resources: {
        // 1 MiB above the sandbox cgroup's limit: ours (the parent) is the one that
        // trips, so its OOM counter sees the kill after the runtime removes this group
        memory: { limit: mem + 1024 * 1024, swap: mem + 1024 * 1024 },
        cpu: { quota: Math.round(i.limits.cpus * 100_000), period: 100_000 },
        pids: { limit: i.limits.pids },
      },
      seccomp: ociSeccomp(i.gvisor === true),
      maskedPaths: [
        '/proc/acpi',
        '/proc/kcore',
        '/proc/keys',
        '/proc/latency_stats',
        '/proc/timer_list',
        '/proc/timer_stats',
        '/proc/sched_debug',
        '/proc/scsi',
        '/sys/firmware',
      ],
      readonlyPaths: ['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}
