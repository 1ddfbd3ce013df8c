import { describe, expect, it } from 'vitest';
import { CLONE_NAMESPACE_FLAGS, compileSeccompFilter, evaluateSeccompFilter, seccompConstants as C } from './seccomp';

const { RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS, EPERM, ENOSYS, EAFNOSUPPORT, tables } = C;

describe('seccomp BPF compiler', () => {
  for (const arch of ['x86_64', 'aarch64'] as const) {
    const prog = compileSeccompFilter(arch);
    const t = tables[arch];
    const run = (nr: number, args: number[] = []) => evaluateSeccompFilter(prog, { nr, arch: t.audit, args });

    it(`${arch}: denies every listed syscall with EPERM and allows ordinary ones`, () => {
      for (const [name, nr] of Object.entries(t.denied)) expect(run(nr), name).toBe(RET_ERRNO | EPERM);
      for (const nr of [0, 1, 3, 9, 60, 231].filter((n) => !Object.values(t.denied).includes(n))) expect(run(nr)).toBe(RET_ALLOW);
    });

    it(`${arch}: clone with namespace flags is refused, plain fork/thread clone allowed, clone3 gets ENOSYS`, () => {
      expect(run(t.clone, [0x10000000])).toBe(RET_ERRNO | EPERM); // CLONE_NEWUSER
      expect(run(t.clone, [0x40000000 | 17])).toBe(RET_ERRNO | EPERM); // CLONE_NEWNET|SIGCHLD
      expect(run(t.clone, [17])).toBe(RET_ALLOW); // fork
      expect(run(t.clone, [0x3d0f00])).toBe(RET_ALLOW); // pthread_create's flags
      expect(run(t.clone3)).toBe(RET_ERRNO | ENOSYS);
      expect(CLONE_NAMESPACE_FLAGS & 0x3d0f00).toBe(0);
    });

    it(`${arch}: socket/socketpair only for AF_UNIX, AF_INET, AF_INET6; io_uring refused`, () => {
      for (const nr of [t.socket, t.socketpair]) {
        for (const fam of [1, 2, 10]) expect(run(nr, [fam])).toBe(RET_ALLOW);
        for (const fam of [0, 3, 5, 9, 15, 16, 17, 31, 38, 40, 44, 45, 1000]) expect(run(nr, [fam]), `family ${fam}`).toBe(RET_ERRNO | EAFNOSUPPORT);
      }
      for (const name of ['io_uring_setup', 'io_uring_enter', 'io_uring_register']) expect(run(t.denied[name]!), name).toBe(RET_ERRNO | EPERM);
    });

    it(`${arch}: a foreign architecture is killed`, () => {
      expect(evaluateSeccompFilter(prog, { nr: 0, arch: 0x40000003 })).toBe(RET_KILL_PROCESS); // i386
    });
  }

  it('x86_64: x32 ABI syscall numbers are refused', () => {
    const prog = compileSeccompFilter('x86_64');
    expect(evaluateSeccompFilter(prog, { nr: 0x40000000 + 1, arch: tables.x86_64.audit })).toBe(RET_ERRNO | EPERM);
  });
});
