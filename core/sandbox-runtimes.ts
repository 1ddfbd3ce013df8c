import { z } from 'zod';

/**
 * The sandbox runtime names Crucible accepts, as a fixed list. A name used to be any
 * `oci:BINARY`, so `oci:echo` ran the host's echo as root and reported `status: ok`; now
 * every entry point (API run config, CLI, job payloads, the runtime factory) checks names
 * against this list. Each name maps to what serves it: bwrap, the configured default OCI
 * runtime (`oci`), or a fixed OCI runtime binary. Every runsc name (`gvisor`, `oci:runsc`,
 * `runsc`, `oci:gvisor`) is served by the sandbox library's gVisor runtime, which results
 * and audit rows name `gvisor`. Imports nothing from the project, so the server, workers
 * and CLI share it.
 */
export const OCI_RUNTIME_BINARIES = ['crun', 'runc', 'runsc', 'kata-runtime', 'youki'] as const;
export type OciRuntimeBinary = (typeof OCI_RUNTIME_BINARIES)[number];

const runtimeTargets = {
  bwrap: { kind: 'bwrap' },
  oci: { kind: 'oci-default' },
  'oci:crun': { kind: 'oci', binary: 'crun' },
  'oci:runc': { kind: 'oci', binary: 'runc' },
  'oci:runsc': { kind: 'oci', binary: 'runsc' },
  'oci:kata-runtime': { kind: 'oci', binary: 'kata-runtime' },
  'oci:youki': { kind: 'oci', binary: 'youki' },
  'oci:gvisor': { kind: 'oci', binary: 'runsc' },
  'oci:kata': { kind: 'oci', binary: 'kata-runtime' },
  crun: { kind: 'oci', binary: 'crun' },
  runc: { kind: 'oci', binary: 'runc' },
  runsc: { kind: 'oci', binary: 'runsc' },
  'kata-runtime': { kind: 'oci', binary: 'kata-runtime' },
  youki: { kind: 'oci', binary: 'youki' },
  gvisor: { kind: 'oci', binary: 'runsc' },
  kata: { kind: 'oci', binary: 'kata-runtime' },
  microvm: { kind: 'microvm' },
} as const satisfies Record<string, { kind: 'bwrap' | 'oci-default' | 'microvm' } | { kind: 'oci'; binary: OciRuntimeBinary }>;

export type SandboxRuntimeName = keyof typeof runtimeTargets;
export const SANDBOX_RUNTIME_NAMES = Object.keys(runtimeTargets) as [SandboxRuntimeName, ...SandboxRuntimeName[]];

const listed = SANDBOX_RUNTIME_NAMES.join(', ');

/** Zod schema for a runtime name; the error lists every valid name. */
export const sandboxRuntimeName = z.enum(SANDBOX_RUNTIME_NAMES, {
  error: (issue) => `unknown sandbox runtime ${JSON.stringify(issue.input)}: use one of ${listed}`,
});

/** What serves a (valid) runtime name: bwrap, the configured OCI default, a QEMU microVM, or an OCI binary. */
export function runtimeTarget(
  name: SandboxRuntimeName,
): { kind: 'bwrap' } | { kind: 'oci-default' } | { kind: 'microvm' } | { kind: 'oci'; binary: OciRuntimeBinary } {
  return runtimeTargets[name];
}

/**
 * CRUCIBLE_OCI_RUNTIME (what `oci` means): one of the OCI names above, e.g. `crun`,
 * `oci:runc` or `gvisor`; default crun. Resolves to the binary.
 */
export const ociRuntimeSetting = z
  .string()
  .default('crun')
  .transform((v, ctx) => {
    const t = (runtimeTargets as Record<string, { kind: string; binary?: OciRuntimeBinary }>)[v];
    if (t?.kind === 'oci' && t.binary) return t.binary;
    ctx.addIssue({
      code: 'custom',
      message: `CRUCIBLE_OCI_RUNTIME=${JSON.stringify(v)} is not an OCI runtime Crucible supports: use one of ${OCI_RUNTIME_BINARIES.join(', ')}`,
    });
    return z.NEVER;
  });

/** The runtimes a sandbox host probes and reports when it registers (every alias resolves to one of these). */
export const PROBED_RUNTIME_NAMES = ['bwrap', 'oci:crun', 'oci:runc', 'gvisor', 'microvm', 'oci:kata-runtime', 'oci:youki'] as const;

/**
 * Risk-tier defaults, strongest isolation first (issue 18): routine code runs under gVisor's
 * user-space kernel, high-risk code in a microVM. A tier the operator leaves unset gets the
 * first runtime this deployment has, and the run says which and why; a tier the operator
 * names is never changed (refused at launch if no host has it).
 */
export const TIER_RUNTIME_PREFERENCES = {
  routine: ['gvisor', 'bwrap'],
  high: ['microvm', 'gvisor', 'bwrap'],
} as const satisfies Record<'routine' | 'high', readonly SandboxRuntimeName[]>;

/** Why a tier's default is not its first preference (what to install), or null when it is. */
export function tierDefaultNote(tier: 'routine' | 'high', chosen: string): string | null {
  const first = TIER_RUNTIME_PREFERENCES[tier][0];
  return chosen === first
    ? null
    : `${tier} risk defaults to ${chosen}: ${first} is not installed on any sandbox host (install it with \`bash scripts/system-deps.sh\`, then restart the workers)`;
}

/**
 * The isolation a run gets for the tiers its config leaves unset, given the runtimes this
 * deployment's sandbox hosts have: each tier's first preference available, with a note for
 * every tier that did not get its first choice. Null when a tier has no preference available.
 */
export function defaultIsolation(available: readonly string[]): {
  isolation: { routine: SandboxRuntimeName; high: SandboxRuntimeName } | null;
  notes: string[];
} {
  const pick = (tier: 'routine' | 'high'): SandboxRuntimeName | null => TIER_RUNTIME_PREFERENCES[tier].find((n) => available.includes(n)) ?? null;
  const routine = pick('routine');
  const high = pick('high');
  const notes = [routine && tierDefaultNote('routine', routine), high && tierDefaultNote('high', high)].filter((n): n is string => !!n);
  return { isolation: routine && high ? { routine, high } : null, notes };
}
