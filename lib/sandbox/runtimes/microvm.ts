import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, fstatSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CgroupLimits } from '../limits/cgroup';
import { accelArgs, microvmAccel, type AccelProbe, type MicrovmAccel } from './microvm-accel';
import { checkRootImage, initramfs, rootImage, scratchImage } from './microvm-disks';
import { findKernel, kernelInstallHint, type MicrovmKernel } from './microvm-kernel';
import { nativeBinary } from './native';
import type { RuntimeOptions } from './options';
import type { ExecEnding, LaunchContext, Launched, Sandbox, SandboxRuntime, SandboxSpec } from './sandbox-runtime';
import { compileSeccompFilter } from './seccomp';
import { SupervisedSandbox, type SupervisorStart } from './supervised-sandbox';
import { SupervisorChannel, childHost } from './supervisor';
import { SandboxError, type Enforcement, type ExecOptions, type ExecResult, type Limits } from '../types';
import { cgroupEnforcement } from './enforcement';

/** the commands' uid and gid inside the guest */
const GUEST_UID = 1000;
/** guest RAM besides the quota: the guest kernel, its page cache and the init's tmpfs */
const GUEST_OVERHEAD_MB = 96;
/** the host group's room for QEMU itself (its own memory and TCG's 64 MiB translation cache) */
const VMM_OVERHEAD_MB = 192;
/** QEMU's threads (vCPUs, I/O, RCU, TCG workers) count as pids in the host group */
const VMM_PIDS = 64;
/** the guest kernel's line when its OOM killer (the sandbox's memory.max) kills a command */
const GUEST_OOM = /Killed process \d+/g;

/** how long a guest may take from QEMU's start to its supervisor's ready (TCG on a loaded host: tens of seconds) */
const BOOT_TIMEOUT_MS = 120_000;

const QEMU_INSTALL = '`apt-get install qemu-system-x86` (or `bash scripts/system-deps.sh`)';

type Host = { qemu: string; version: string; kernel: MicrovmKernel; initrd: string; accel: MicrovmAccel; probes: AccelProbe[] };

/**
 * The microVM tier (`microvm`): each sandbox is a QEMU `microvm` machine with Debian's cloud
 * kernel, no network device, the environment's rootfs as a read-only virtio-blk disk, a
 * scratch disk of the quota's size, the quota's vCPUs and memory, and the supervisor
 * (supervisor.c) as the guest's PID 1 serving execs over virtio-serial (microvm-init.c sets
 * the guest up). KVM where a guest boots under it, else TCG (microvm-accel.ts); never
 * another runtime. QEMU runs unprivileged, in the sandbox's cgroup, and dies with this
 * process (parent-death signal).
 */
export class MicrovmRuntime implements SandboxRuntime {
  readonly name = 'microvm';
  readonly qemu: string;
  readonly kernelDir: string;
  private known?: Host;

  constructor(readonly options: RuntimeOptions) {
    this.qemu = options.qemu ?? 'qemu-system-x86_64';
    this.kernelDir = options.microvmKernel;
  }

  /** QEMU, the kernel, the initramfs and the accelerator; throws a `missing_runtime` SandboxError saying what to install. */
  host(storeDir: string): Host {
    if (this.known) return this.known;
    const v = spawnSync(this.qemu, ['--version'], { encoding: 'utf8' });
    if (v.error || v.status !== 0) {
      throw new SandboxError(
        `the microvm runtime needs QEMU: \`${this.qemu}\` is not installed or not runnable (${v.error?.message ?? v.stderr.trim()}). Install it with ${QEMU_INSTALL}; nothing falls back to a weaker runtime.`,
        'missing_runtime',
      );
    }
    const kernel = findKernel(this.kernelDir);
    if ('reason' in kernel) {
      throw new SandboxError(
        `the microvm runtime needs a guest kernel: ${kernel.reason}. To fetch it, ${kernelInstallHint(this.kernelDir)}.`,
        'missing_runtime',
      );
    }
    const init = nativeBinary('microvm-init.c', storeDir, this.options.cc);
    const sup = nativeBinary('supervisor.c', storeDir, this.options.cc);
    if (!init.binary || !sup.binary) {
      throw new SandboxError(`the microvm runtime needs its guest init and supervisor built: ${init.reason ?? sup.reason}`, 'missing_runtime');
    }
    const initrd = initramfs(path.join(storeDir, 'microvm'), kernel, init.binary, sup.binary, compileSeccompFilter());
    const { accel, probes } = microvmAccel(this.qemu, kernel.vmlinuz, initrd);
    this.known = { qemu: this.qemu, version: v.stdout.split('\n')[0]!.trim(), kernel, initrd, accel, probes };
    return this.known;
  }

  /** Where the initramfs is built when no sandbox names a store yet (check, runtimes). */
  private defaultStore(): string {
    return path.join(path.dirname(this.kernelDir), 'build');
  }

  check(): void {
    if (process.getuid?.() !== 0)
      throw new SandboxError('microvm sandboxes need root (QEMU is started as an unprivileged uid in a cgroup); use --runtime bwrap', 'missing_runtime');
    const mk = spawnSync('mkfs.ext4', ['-V'], { encoding: 'utf8' });
    if (mk.error) throw new SandboxError('the microvm runtime needs mkfs.ext4 for its disks: `apt-get install e2fsprogs`', 'missing_runtime');
    this.host(this.defaultStore());
  }

  /** What `crucible sandbox runtimes` shows besides what it enforces. */
  details(): { version: string; kernel: string; accel: MicrovmAccel; accels: AccelProbe[] } {
    const h = this.host(this.defaultStore());
    return { version: h.version, kernel: h.kernel.version, accel: h.accel, accels: h.probes };
  }

  enforces(): Enforcement {
    const mode = cgroupEnforcement();
    return {
      namespaces: [], // a whole guest kernel instead: nothing of the host's is shared but the devices QEMU emulates
      readOnlyRoot: true,
      seccomp: true, // inside the guest, on every command (the same filter as bwrap's)
      network: 'loopback', // no network device at all: the guest's loopback only
      memory: mode, // the VM's size, the guest's memory.max, and the host group around QEMU
      cpu: mode,
      pids: mode,
      disk: 'disk-size',
      hostUid: 65534,
      kernel: 'guest',
    };
  }

  create(spec: SandboxSpec): Sandbox {
    if (spec.allow?.length) {
      throw new SandboxError('--allow (egress allow-list) is implemented for the bwrap runtime only; microvm sandboxes have no network device', 'config');
    }
    const host = this.host(path.dirname(spec.env.dir));
    return new MicrovmSandbox(this, host, spec);
  }
}

/** A file put before the guest runs: delivered through the supervisor at the next exec. */
type PendingFile = { dest: string; data: Buffer; mode: number };

export class MicrovmSandbox extends SupervisedSandbox {
  readonly accel: MicrovmAccel;
  private generation = 0;
  private consoleFile = '';
  private consoleOffset = 0;
  private pending: PendingFile[] = [];

  constructor(
    readonly runtime: MicrovmRuntime,
    private readonly vm: Host,
    spec: SandboxSpec,
  ) {
    super('microvm', spec, runtime.options);
    this.accel = vm.accel;
    this.starting = this.startSupervised();
  }

  override get warm(): boolean {
    return true;
  }

  /** QEMU and the guest's RAM live in the host group: it gets room for them on top of the quota (the guest enforces the quota itself). */
  protected override hostGroupLimits(limits: Limits): CgroupLimits {
    return { ...limits, memoryMb: limits.memoryMb + GUEST_OVERHEAD_MB + VMM_OVERHEAD_MB, pids: limits.pids + VMM_PIDS };
  }

  override residentPids(): number[] {
    return this.channel?.alive ? this.cgroup.pids() : [];
  }

  private qemuArgs(scratch: string, root: string): string[] {
    const l = this.spec.limits;
    const append = [
      'console=ttyS0',
      'quiet',
      'panic=-1',
      ...(this.accel === 'tcg' ? tcgClockArgs() : []),
      `crucible.uid=${GUEST_UID}:${GUEST_UID}`,
      `crucible.mem=${l.memoryMb * 1024 * 1024}`,
      `crucible.pids=${l.pids}`,
    ].join(' ');
    return [
      ...['-M', 'microvm,x-option-roms=off,rtc=off', ...accelArgs(this.accel), '-smp', String(Math.max(1, Math.ceil(l.cpus)))],
      ...['-m', String(l.memoryMb + GUEST_OVERHEAD_MB), '-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot'],
      ...['-sandbox', 'on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny'],
      ...['-kernel', this.vm.kernel.vmlinuz, '-initrd', this.vm.initrd, '-append', append],
      ...['-serial', `file:${this.consoleFile}`],
      // no -netdev/-nic: with -nodefaults the guest has no network device at all
      ...['-drive', `id=root,file=${root},format=raw,if=none,readonly=on`, '-device', 'virtio-blk-device,drive=root,serial=crucible-root'],
      ...['-drive', `id=scratch,file=${scratch},format=raw,if=none,cache=unsafe`, '-device', 'virtio-blk-device,drive=scratch,serial=crucible-scratch'],
      ...['-device', 'virtio-serial-device', '-chardev', 'stdio,id=ch,signal=off', '-device', 'virtserialport,chardev=ch,name=crucible,nr=1'],
    ];
  }

  /**
   * Boot the VM once the environment (its directory, then its image) checked out: QEMU as
   * the sandbox's host uid, joined to its cgroups first, with a parent-death SIGKILL.
   */
  protected override startSupervised(): Promise<SupervisorStart> {
    const ready = this.readyToBoot();
    return (async (): Promise<SupervisorStart> => {
      const refused = await ready;
      if (refused) return refused;
      let child: ChildProcess;
      try {
        const root = rootImage(path.join(path.dirname(this.spec.env.dir), 'microvm'), this.spec.env);
        const problems = checkRootImage(root);
        if (problems.length) {
          rmSync(root, { force: true }); // the next start builds it again from the verified directory
          return { mismatch: { ok: false, mode: 'full', problems, durationMs: 0 } };
        }
        const gen = ++this.generation;
        const scratch = path.join(this.dir, `scratch-${gen}.img`);
        scratchImage(scratch, this.spec.limits.diskMb, this.hostUid, this.hostGid);
        this.consoleFile = path.join(this.dir, `console-${gen}.log`);
        writeFileSync(this.consoleFile, '', { mode: 0o600 });
        chownSync(this.consoleFile, this.hostUid, this.hostGid);
        this.consoleOffset = 0;
        const procs = this.cgroup.dirs.map((d) => path.join(d, 'cgroup.procs')).join(' ');
        child = spawn(
          '/bin/sh',
          [
            '-c',
            'for p in $CRUCIBLE_CGROUP_PROCS; do echo $$ > "$p" || exit 125; done; exec "$@"',
            'crucible-microvm',
            'setpriv',
            `--reuid=${this.hostUid}`,
            `--regid=${this.hostGid}`,
            '--clear-groups',
            '--pdeathsig',
            'KILL',
            '--',
            this.vm.qemu,
            ...this.qemuArgs(scratch, root),
          ],
          {
            cwd: '/',
            env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', CRUCIBLE_CGROUP_PROCS: procs } as unknown as NodeJS.ProcessEnv,
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        );
      } catch (e) {
        return { error: `cannot start the microVM: ${(e as Error).message}` };
      }
      const consoleFile = this.consoleFile;
      // QEMU's own errors are on its stderr; the guest's (a failed init, a panic) on its console
      const host = childHost(child, (stderr) => {
        const qemu = stderr.trim();
        const guest = readTail(consoleFile, 2000)
          .split('\n')
          .filter((l) => /crucible-init: FAILED|Kernel panic|Killed process/.test(l))
          .join('; ');
        return [qemu && `QEMU: ${qemu}`, guest && `guest: ${guest}`].filter(Boolean).join('; ');
      });
      const channel = new SupervisorChannel(host, child.stdin!, child.stdout!);
      this.channel = channel;
      // the boot is the sandbox's, not the first command's: its timeout starts once the guest is up
      let timer: NodeJS.Timeout | undefined;
      const up = await Promise.race([channel.ready, new Promise<false>((r) => (timer = setTimeout(() => r(false), BOOT_TIMEOUT_MS)))]);
      clearTimeout(timer);
      if (!up) {
        const why = channel.alive ? `the guest did not start within ${BOOT_TIMEOUT_MS / 1000} s` : 'the VM stopped during boot';
        const detail = await host.stderr();
        this.restart();
        return { error: `cannot boot the microVM (${this.accel}): ${why}${detail ? `: ${detail}` : ''}` };
      }
      return { channel };
    })();
  }

  /**
   * A pooled VM handed out again is a new start: the environment's directory and the image
   * the VM reads its root from are checked before its next exec (a changed image is
   * removed, so the next boot rebuilds it from the verified directory).
   */
  override arm(): void {
    super.arm();
    const dir = this.pendingCheck;
    if (!dir) return;
    this.pendingCheck = dir.then((v) => {
      if (!v.ok) return v;
      const image = rootImage(path.join(path.dirname(this.spec.env.dir), 'microvm'), this.spec.env);
      const problems = checkRootImage(image);
      if (!problems.length) return v;
      rmSync(image, { force: true });
      return { ok: false, mode: 'full' as const, problems, durationMs: v.durationMs };
    });
  }

  /** Every result says which accelerator ran the VM; files put since the last exec reach the guest first. */
  override async exec(cmd: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    // a boot in progress is the sandbox's, not the command's: neither its duration nor its timeout
    if (this.starting && !this.destroyed) await this.starting;
    while (this.pending.length) {
      const f = this.pending.shift()!;
      const script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1" && chmod "$2" "$1"';
      const r = await super.exec(['sh', '-c', script, 'crucible-put', f.dest, f.mode.toString(8)], { stdin: f.data, cwd: '/work' });
      if (r.status !== 'ok') {
        this.pending = [];
        return { ...r, status: 'sandbox_error', error: `cannot put ${f.dest} into the microVM: ${r.error ?? r.stderr.trim()}`, platform: this.accel };
      }
    }
    return { ...(await super.exec(cmd, opts)), platform: this.accel };
  }

  /**
   * The scratch is the guest's own disk, which the host does not mount while the VM runs:
   * files go in through the supervisor (as the commands' uid) at the next exec. The host
   * copy is only the path check and a staging copy.
   */
  override putFile(dest: string, data: Buffer | string, mode = 0o644): void {
    super.putFile(dest, data, mode);
    this.pending.push({ dest: path.posix.resolve('/work', dest), data: typeof data === 'string' ? Buffer.from(data) : data, mode });
  }

  /** Files put for the last user never reach the next one. */
  override async reset(): Promise<void> {
    this.pending = [];
    await super.reset();
  }

  override getFile(p: string): Buffer {
    throw new SandboxError(
      `getFile(${p}) is not available for microvm sandboxes: the scratch is the guest's disk; read it with an exec (e.g. \`cat ${p}\`)`,
      'config',
    );
  }

  /** New console lines since the last look. */
  private consoleSince(): string {
    if (!this.consoleFile) return '';
    let fd: number;
    try {
      fd = openSync(this.consoleFile, 'r');
    } catch {
      return '';
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      let text = '';
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.consoleOffset);
        if (n <= 0) break;
        this.consoleOffset += n;
        text += buf.subarray(0, n).toString('latin1');
      }
      return text;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The guest decides: a command SIGKILLed while the guest kernel's OOM killer reported a
   * kill is `memory_limit` (the quota is the guest's memory.max); usage is the command's own
   * rusage from the supervisor, since the host group also holds QEMU and the guest kernel.
   */
  protected override classify(p: ExecEnding): ExecResult {
    const r = super.classify(p);
    const guestOom = (this.consoleSince().match(GUEST_OOM) ?? []).length > 0;
    const hostOom = this.cgroup.oomKills() > p.c0.oom; // QEMU itself over the host group's limit
    const status = p.timedOut ? 'timeout' : guestOom || hostOom ? 'memory_limit' : r.signal ? 'killed' : r.exitCode === 0 ? 'ok' : 'nonzero_exit';
    // CPU: what the VM cost the host meanwhile (QEMU's group; under TCG that includes the
    // emulation). Memory: the command's own peak inside the guest.
    return { ...r, status, usage: { ...r.usage, maxRssMb: p.fallbackUsage?.maxRssMb ?? 0 } };
  }

  /** Kill the VM (all of QEMU lives in the sandbox's group) and drop its scratch disk; the next exec boots a fresh one. */
  protected override restart(): void {
    this.channel?.close();
    this.channel = undefined;
    this.starting = undefined;
    this.cgroup.killAll();
    for (let g = 1; g <= this.generation; g++) rmSync(path.join(this.dir, `scratch-${g}.img`), { force: true });
  }

  /** A VM that is lost (QEMU died, or was torn down after a timeout) boots again now, for the next exec. */
  protected override afterLoss(): void {
    if (!this.destroyed) this.starting = this.startSupervised();
  }

  override destroy(): void {
    if (!this.destroyed) this.cgroup.killAll();
    super.destroy();
  }

  protected override onDestroy(): void {
    this.channel?.close();
    this.channel = undefined;
  }

  protected launch(_ctx: LaunchContext): Launched {
    throw new SandboxError('microvm sandboxes always run warm (one VM, many execs)', 'internal');
  }

  protected setupFailure(): string | undefined {
    return undefined;
  }
}

/**
 * Under TCG the microvm machine has no HPET or ACPI PM timer, and the kernel's TSC
 * calibration against the PIT fails when the host is loaded, after which the guest
 * crawls (over 2 minutes to its init here). TCG's TSC runs at the host's rate, so the
 * guest is told that rate and the matching delay loop (HZ=250) instead of measuring them.
 */
function tcgClockArgs(): string[] {
  let khz = 0;
  try {
    khz = Math.round(Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 0) * 1000);
  } catch {
    /* no /proc/cpuinfo: let the guest calibrate */
  }
  return khz > 0 ? [`tsc_early_khz=${khz}`, 'tsc=reliable', `lpj=${khz * 4}`] : [];
}

/** The last `n` bytes of a file ('' when unreadable). */
function readTail(file: string, n: number): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(n);
      const size = fstatSync(fd).size;
      const got = readSync(fd, buf, 0, n, Math.max(0, size - n));
      return buf.subarray(0, got).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}
