import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The guest kernel of the `microvm` runtime: Debian's linux-image-cloud-amd64, unpacked (not
 * installed) by scripts/microvm-kernel.sh into `<data dir>/microvm/kernel`: `boot/vmlinuz-*`,
 * `version`, and the virtio modules the guest's init loads, in load order (virtio is a
 * module in Debian's cloud kernel; ext4 is built in).
 */
export const GUEST_MODULES = ['virtio_ring', 'virtio', 'virtio_blk', 'virtio_console', 'virtio_mmio'] as const;

export type MicrovmKernel = { dir: string; version: string; vmlinuz: string; modules: string[] };

export function kernelInstallHint(dir: string): string {
  return `run \`bash scripts/microvm-kernel.sh ${dir}\` (apt-get download of linux-image-cloud-amd64's kernel, unpacked with dpkg-deb -x; \`bash scripts/system-deps.sh\` does it for the default data dir)`;
}

/** The kernel in `dir`, or why it is not usable there. */
export function findKernel(dir: string): MicrovmKernel | { reason: string } {
  const boot = path.join(dir, 'boot');
  const vmlinuz = existsSync(boot) ? readdirSync(boot).find((f) => f.startsWith('vmlinuz-')) : undefined;
  if (!vmlinuz) return { reason: `no guest kernel in ${dir}` };
  const version = existsSync(path.join(dir, 'version')) ? readFileSync(path.join(dir, 'version'), 'utf8').trim() : vmlinuz.slice('vmlinuz-'.length);
  const modules = GUEST_MODULES.map((m) => path.join(dir, 'modules', `${m}.ko`));
  const missing = modules.filter((m) => !existsSync(m));
  if (missing.length) return { reason: `the guest kernel in ${dir} lacks ${missing.map((m) => path.basename(m)).join(', ')}` };
  return { dir, version, vmlinuz: path.join(boot, vmlinuz), modules };
}
