import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';

/**
 * How the microVM's vCPUs run: `kvm` (hardware virtualisation through /dev/kvm) or `tcg`
 * (QEMU's full emulation). Both are VM isolation: the guest has its own kernel and sees
 * only the devices QEMU gives it; TCG is slower, never weaker. KVM is used where a probe
 * guest reaches its init under it; this probe exists because on some nested hosts
 * /dev/kvm opens and a vCPU can be created, but the guest hangs right after the kernel's
 * decompressor (see docs/sandbox.md).
 */
export type MicrovmAccel = 'kvm' | 'tcg';
export type AccelProbe = { accel: MicrovmAccel; ok: boolean; reason?: string };

/** How long a KVM guest may take to print its init's first line before KVM counts as broken here. */
export const KVM_PROBE_MS = 5000;

/**
 * Boot the real kernel and initramfs under KVM, with no disks: the init prints
 * `crucible-init: booted` first and, told it is a probe, exits, which stops the VM.
 */
function probeKvm(qemu: string, vmlinuz: string, initrd: string): AccelProbe {
  if (!existsSync('/dev/kvm')) return { accel: 'kvm', ok: false, reason: '/dev/kvm is missing (this host exposes no hardware virtualisation)' };
  try {
    closeSync(openSync('/dev/kvm', 'r+'));
  } catch (e) {
    return { accel: 'kvm', ok: false, reason: `/dev/kvm cannot be opened: ${(e as Error).message}` };
  }
  const r = spawnSync(
    qemu,
    [
      ...['-M', 'microvm,x-option-roms=off,rtc=off', '-accel', 'kvm', '-cpu', 'host', '-m', '128', '-smp', '1'],
      ...['-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot', '-serial', 'stdio'],
      ...['-kernel', vmlinuz, '-initrd', initrd, '-append', 'console=ttyS0 quiet panic=-1 crucible.probe=1'],
    ],
    { encoding: 'utf8', timeout: KVM_PROBE_MS, killSignal: 'SIGKILL' },
  );
  if (r.stdout?.includes('crucible-init: booted')) return { accel: 'kvm', ok: true };
  const last = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-1)[0]?.slice(0, 300) ?? '';
  return {
    accel: 'kvm',
    ok: false,
    reason: r.error?.message.includes('ETIMEDOUT')
      ? `a KVM guest did not reach its init within ${KVM_PROBE_MS / 1000} s${last ? ` (last output: ${last})` : ' (no output)'}`
      : `qemu -accel kvm failed: ${last || r.error?.message || `exit ${r.status}`}`,
  };
}

const probed = new Map<string, { accel: MicrovmAccel; probes: AccelProbe[] }>();

/** The accelerator microVMs use here (KVM where a guest boots under it, else TCG), probed once per process. */
export function microvmAccel(qemu: string, vmlinuz: string, initrd: string): { accel: MicrovmAccel; probes: AccelProbe[] } {
  const key = `${qemu}\0${vmlinuz}\0${initrd}`;
  let known = probed.get(key);
  if (!known) {
    const kvm = probeKvm(qemu, vmlinuz, initrd);
    known = { accel: kvm.ok ? 'kvm' : 'tcg', probes: [kvm, { accel: 'tcg', ok: true }] };
    probed.set(key, known);
  }
  return known;
}

/** QEMU's arguments for the accelerator. TCG's translation cache is capped: it is charged to the sandbox's memory. */
export function accelArgs(accel: MicrovmAccel): string[] {
  return accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg,thread=multi,tb-size=64', '-cpu', 'max'];
}
