import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Which gVisor platform runs here. The platform is how the sentry (gVisor's kernel) takes
 * over the sandboxed program's syscalls: `kvm` (hardware virtualisation, needs /dev/kvm),
 * `systrap` (seccomp traps; newer runsc only) or `ptrace` (works everywhere, slowest). runsc
 * builds differ in which they have (Debian's 20221219: ptrace and kvm), and a platform can
 * be built in yet fail on a host (no /dev/kvm, nested virtualisation that hangs), so each
 * candidate is tried with a real sandbox start, fastest first, once per process and binary.
 */
export const GVISOR_PLATFORMS = ['kvm', 'systrap', 'ptrace'] as const;
export type GvisorPlatform = (typeof GVISOR_PLATFORMS)[number];

export type PlatformProbe = { platform: GvisorPlatform; works: boolean; reason?: string; probeMs?: number };
export type GvisorHost = {
  /** `runsc --version`, e.g. `0.0~20221219.0` */
  version: string;
  /** the platform sandboxes use here; undefined: none works (`probes` say why) */
  platform?: GvisorPlatform;
  probes: PlatformProbe[];
};

/**
 * A start of a plain `true` takes ~0.4 s here; a platform that hangs is given up on. KVM gets
 * 5 s (as the microvm's KVM probe): on nested hosts its guest hangs, and every worker that
 * registers pays the probe.
 */
const PROBE_TIMEOUT_MS: Record<GvisorPlatform, number> = { kvm: 5_000, systrap: 20_000, ptrace: 20_000 };
const known = new Map<string, GvisorHost>();

/** The platforms this runsc build has, from its `-platform` flag's help text. */
export function builtInPlatforms(flagsHelp: string): GvisorPlatform[] {
  const line = /-platform string\s+specifies which platform to use: ([^\n]*)/.exec(flagsHelp)?.[1] ?? '';
  return GVISOR_PLATFORMS.filter((p) => new RegExp(`\\b${p}\\b`).test(line));
}

/** The last FATAL ERROR runsc logged (its messages are long; the last line has the cause). */
function fatal(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim());
  const f = lines.filter((l) => l.includes('FATAL ERROR:')).pop();
  return (f ? f.slice(f.indexOf('FATAL ERROR:') + 12) : (lines.pop() ?? '')).trim();
}

function probe(binary: string, platform: GvisorPlatform): PlatformProbe {
  const root = mkdtempSync(path.join(os.tmpdir(), 'crucible-runsc-probe-'));
  const t0 = performance.now();
  try {
    // `do` runs a command in a throwaway sandbox over the host's root: a real boot of the
    // platform, with the global flags sandboxes use (gvisor.ts), so runsc accepts those too
    const flags = [`--root=${root}`, `--platform=${platform}`, '--network=none', '--ignore-cgroups', '--oci-seccomp', `--debug-log=${root}/log/`];
    const r = spawnSync(binary, [...flags, 'do', 'true'], {
      encoding: 'utf8',
      timeout: PROBE_TIMEOUT_MS[platform],
      killSignal: 'SIGKILL',
    });
    const probeMs = Math.round(performance.now() - t0);
    if (r.error) return { platform, works: false, probeMs, reason: `\`runsc --platform=${platform} do true\` failed: ${r.error.message}` };
    if (r.status === 0) return { platform, works: true, probeMs };
    return { platform, works: false, probeMs, reason: `a test sandbox did not start (exit ${r.status}): ${fatal(`${r.stderr}\n${r.stdout}`)}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * runsc's version and the platform that works here, probed once per process and binary
 * (a sandbox start per candidate, ~0.4 s for the one that works). Throws when `binary`
 * itself does not run; the caller says what to install.
 */
export function gvisorHost(binary: string): GvisorHost {
  const cached = known.get(binary);
  if (cached) return cached;
  const v = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (v.error || v.status !== 0) throw new Error(v.error?.message ?? (v.stderr.trim() || `exit ${v.status}`));
  const version = /runsc version (\S+)/.exec(v.stdout)?.[1] ?? v.stdout.trim().split('\n')[0] ?? 'unknown';
  const flags = spawnSync(binary, ['flags'], { encoding: 'utf8' }); // printed on stderr
  const built = builtInPlatforms(`${flags.stdout ?? ''}\n${flags.stderr ?? ''}`);
  const probes: PlatformProbe[] = [];
  let platform: GvisorPlatform | undefined;
  for (const p of GVISOR_PLATFORMS) {
    if (!built.includes(p))
      probes.push({ platform: p, works: false, reason: `runsc ${version} has no ${p} platform (it has ${built.join(', ') || 'none listed'})` });
    else if (platform) probes.push({ platform: p, works: false, reason: `not tried: ${platform} is faster and works` });
    else if (p === 'kvm' && !existsSync('/dev/kvm'))
      probes.push({ platform: p, works: false, reason: '/dev/kvm is missing (no hardware virtualisation on this host)' });
    else {
      const r = probe(binary, p);
      probes.push(r);
      if (r.works) platform = p;
    }
  }
  const host = { version, platform, probes };
  known.set(binary, host);
  return host;
}
