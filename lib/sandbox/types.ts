import { z } from 'zod';

// The limits and egress entries are part of job payloads (core/job-payloads.ts): their schemas live in core/.
export { allowEntry, defaultLimits, limitsInputSchema, limitsSchema, type Limits, type LimitsInput } from '@/core/sandbox-limits';

export const execStatus = z.enum(['ok', 'nonzero_exit', 'timeout', 'memory_limit', 'killed', 'env_mismatch', 'sandbox_error']);
export type ExecStatus = z.infer<typeof execStatus>;

/** The result object of the CLI contract (`crucible sandbox exec --json`). */
export type ExecResult = {
  status: ExecStatus;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
  envHash: string;
  runtime: string;
  /** gVisor: the platform its kernel ran on (ptrace, systrap or kvm; gvisor-platform.ts); microvm: the accelerator (kvm or tcg; microvm-accel.ts) */
  platform?: string;
  sandboxId: string;
  /**
   * cpuMs: CPU time of the sandbox's cgroup during the exec. cpuWaitMs: how long its tasks were
   * runnable but waiting for a CPU (cgroup v2 `cpu.pressure` "some", or sampled run_delay on
   * v1; limits/cpu-wait.ts), a host-side measurement; absent where the tier's cgroup gives
   * none. With cpuMs it tells a blocked or CPU-hungry command from a busy host on a wall
   * timeout: limits/cpu-verdict.ts.
   */
  usage: { cpuMs: number; maxRssMb: number; cpuWaitMs?: number };
  /** set for env_mismatch / sandbox_error: what went wrong */
  error?: string;
  /** with an allow-list only: every connection attempt through the egress proxy */
  egress?: { at: string; host: string; port: number; allowed: boolean; bytesOut: number; bytesIn: number; error?: string }[];
};

export type ExecOptions = {
  /** override the sandbox's timeout for this exec */
  timeoutMs?: number;
  /** extra environment variables for the command */
  env?: Record<string, string>;
  /** working directory inside the sandbox (default /work) */
  cwd?: string;
  stdin?: Buffer | string;
};

/** What a runtime actually enforces on this host, reported so nothing is silently weaker. */
export type Enforcement = {
  namespaces: string[];
  readOnlyRoot: boolean;
  seccomp: boolean;
  network: 'none' | 'loopback' | 'proxy';
  memory: 'cgroup-v2' | 'cgroup-v1' | 'rlimit' | 'none';
  cpu: 'cgroup-v2' | 'cgroup-v1' | 'none';
  pids: 'cgroup-v2' | 'cgroup-v1' | 'rlimit' | 'none';
  disk: 'tmpfs-size' | 'disk-size' | 'none';
  hostUid: number;
  /** whose kernel serves the sandbox's syscalls: the host's (bwrap, runc, crun), gVisor's own, or a microVM's guest kernel (unset: the host's) */
  kernel?: 'host' | 'gvisor' | 'guest';
};

/** Raised when the sandbox layer cannot do what was asked; the message says what to change. */
export class SandboxError extends Error {
  constructor(
    message: string,
    readonly kind: 'missing_runtime' | 'config' | 'env_mismatch' | 'internal' = 'internal',
  ) {
    super(message);
  }
}
