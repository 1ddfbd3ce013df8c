/**
 * A classic-BPF seccomp filter, compiled here so bwrap (`--seccomp FD`) and OCI runtimes
 * need no libseccomp. It denies, with EPERM, the syscalls sandboxed code never needs:
 * mounting, tracing, kexec, bpf, keyrings, kernel modules, namespace creation/joining
 * (including clone with namespace flags), and host-wide settings. `clone3` gets ENOSYS so
 * libc falls back to `clone`, whose flags a classic filter can inspect. `socket` and
 * `socketpair` are refused (EAFNOSUPPORT) for every family but AF_UNIX, AF_INET and
 * AF_INET6: AF_VSOCK reaches the hypervisor on a VM host, AF_NETLINK/AF_PACKET/AF_ALG/...
 * are kernel attack surface no sandboxed program needs. io_uring is refused too (it runs
 * I/O outside the syscall filter's view). Foreign architectures (e.g. 32-bit int 0x80 on
 * x86_64) kill the process.
 */

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;

/** The only socket families sandboxed code may create: AF_UNIX, AF_INET, AF_INET6. */
export const ALLOWED_SOCKET_FAMILIES = [1, 2, 10] as const;

// offsets in struct seccomp_data
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LO = 16; // little-endian low word of args[0]

/** CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWTIME */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

export type SeccompArch = 'x86_64' | 'aarch64';

type ArchTable = { audit: number; x32Bit?: number; clone: number; clone3: number; socket: number; socketpair: number; denied: Record<string, number> };

const common = {
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  move_mount: 429,
  open_tree: 428,
  mount_setattr: 442,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
};

const tables: Record<SeccompArch, ArchTable> = {
  x86_64: {
    audit: 0xc000003e,
    x32Bit: 0x40000000,
    clone: 56,
    clone3: 435,
    socket: 41,
    socketpair: 53,
    denied: {
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      kexec_load: 246,
      kexec_file_load: 320,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      unshare: 272,
      setns: 308,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      sethostname: 170,
      setdomainname: 171,
      acct: 163,
      quotactl: 179,
      syslog: 103,
      settimeofday: 164,
      clock_settime: 227,
      clock_adjtime: 305,
      adjtimex: 159,
      iopl: 172,
      ioperm: 173,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      vhangup: 153,
      uselib: 134,
      lookup_dcookie: 212,
      _sysctl: 156,
      mq_open: 240,
      ...common,
    },
  },
  aarch64: {
    audit: 0xc00000b7,
    clone: 220,
    clone3: 435,
    socket: 198,
    socketpair: 199,
    denied: {
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      kexec_load: 104,
      kexec_file_load: 294,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      unshare: 97,
      setns: 268,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      sethostname: 161,
      setdomainname: 162,
      acct: 89,
      quotactl: 60,
      syslog: 116,
      settimeofday: 170,
      clock_settime: 112,
      clock_adjtime: 266,
      adjtimex: 171,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      vhangup: 58,
      lookup_dcookie: 18,
      mq_open: 180,
      ...common,
    },
  },
};

export function hostSeccompArch(): SeccompArch {
  if (process.arch === 'x64') return 'x86_64';
  if (process.arch === 'arm64') return 'aarch64';
  throw new Error(`no seccomp syscall table for architecture ${process.arch}; add one in lib/sandbox/runtimes/seccomp.ts`);
}

/** Names of the syscalls the filter refuses (for docs, audits and `enforces`). */
export function deniedSyscalls(arch: SeccompArch = hostSeccompArch()): string[] {
  return [
    ...Object.keys(tables[arch].denied),
    'clone(namespace flags)',
    'clone3 (ENOSYS)',
    'socket/socketpair(families other than unix, inet, inet6: EAFNOSUPPORT)',
  ];
}

type Insn = { code: number; k: number; jt?: string | number; jf?: string | number; label?: string };

/** The filter as `struct sock_filter[]` bytes (8 bytes per instruction, host endianness LE). */
export function compileSeccompFilter(arch: SeccompArch = hostSeccompArch()): Buffer {
  const t = tables[arch];
  const prog: Insn[] = [
    { code: LD_W_ABS, k: OFF_ARCH },
    { code: JEQ_K, k: t.audit, jt: 0, jf: 'kill' },
    { code: LD_W_ABS, k: OFF_NR },
  ];
  if (t.x32Bit) prog.push({ code: JGE_K, k: t.x32Bit, jt: 'eperm', jf: 0 });
  for (const nr of Object.values(t.denied)) prog.push({ code: JEQ_K, k: nr, jt: 'eperm', jf: 0 });
  prog.push({ code: JEQ_K, k: t.clone3, jt: 'enosys', jf: 0 });
  prog.push({ code: JEQ_K, k: t.clone, jt: 'clone', jf: 0 });
  prog.push({ code: JEQ_K, k: t.socket, jt: 'family', jf: 0 });
  prog.push({ code: JEQ_K, k: t.socketpair, jt: 'family', jf: 0 });
  prog.push({ code: RET_K, k: RET_ALLOW });
  prog.push({ label: 'clone', code: LD_W_ABS, k: OFF_ARG0_LO });
  prog.push({ code: JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'eperm', jf: 0 });
  prog.push({ code: RET_K, k: RET_ALLOW });
  // the kernel reads the family as an int: the low word of args[0] is all that counts
  prog.push({ label: 'family', code: LD_W_ABS, k: OFF_ARG0_LO });
  for (const f of ALLOWED_SOCKET_FAMILIES) prog.push({ code: JEQ_K, k: f, jt: 'allow', jf: 0 });
  prog.push({ code: RET_K, k: RET_ERRNO | EAFNOSUPPORT });
  prog.push({ label: 'allow', code: RET_K, k: RET_ALLOW });
  prog.push({ label: 'enosys', code: RET_K, k: RET_ERRNO | ENOSYS });
  prog.push({ label: 'eperm', code: RET_K, k: RET_ERRNO | EPERM });
  prog.push({ label: 'kill', code: RET_K, k: RET_KILL_PROCESS });

  const at = new Map<string, number>();
  prog.forEach((insn, i) => {
    if (insn.label) at.set(insn.label, i);
  });
  const offset = (i: number, target: string | number | undefined): number => {
    if (target === undefined || typeof target === 'number') return target ?? 0;
    const to = at.get(target);
    if (to === undefined) throw new Error(`seccomp: unknown label ${target}`);
    const rel = to - (i + 1);
    if (rel < 0 || rel > 255) throw new Error(`seccomp: jump to ${target} out of range`);
    return rel;
  };
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(offset(i, insn.jt), i * 8 + 2);
    buf.writeUInt8(offset(i, insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** A tiny classic-BPF interpreter for the subset we emit, so tests can check decisions. */
export function evaluateSeccompFilter(prog: Buffer, data: { nr: number; arch: number; args?: number[] }): number {
  const word = (off: number): number => {
    if (off === OFF_NR) return data.nr >>> 0;
    if (off === OFF_ARCH) return data.arch >>> 0;
    if (off >= 16 && (off - 16) % 8 === 0) return (data.args?.[(off - 16) / 8] ?? 0) >>> 0;
    throw new Error(`unsupported load offset ${off}`);
  };
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8;) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === LD_W_ABS) {
      acc = word(k);
      pc++;
      continue;
    }
    if (code === RET_K) return k;
    const taken = code === JEQ_K ? acc === k : code === JGE_K ? acc >= k : code === JSET_K ? (acc & k) !== 0 : undefined;
    if (taken === undefined) throw new Error(`unsupported opcode ${code}`);
    pc += 1 + (taken ? jt : jf);
  }
  throw new Error('fell off the end of the filter');
}

export const seccompConstants = { RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS, EPERM, ENOSYS, EAFNOSUPPORT, tables };
