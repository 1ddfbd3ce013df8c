import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { cgroupLayout } from './cgroup';
import { EgressProxy, FORWARDER, PROXY_PORT } from './egress';
import { compileSeccompFilter } from './seccomp';
import { Sandbox, type LaunchContext, type Launched, type SandboxRuntime, type SandboxSpec } from './runtime';
import { SandboxError, type Enforcement } from './types';

const SANDBOX_UID = 1000;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The environment every sandboxed command starts with (plus ExecOptions.env). */
export function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  for (const k of Object.keys(extra)) if (!ENV_KEY.test(k)) throw new SandboxError(`invalid environment variable name ${k}`, 'config');
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/work', TMPDIR: '/tmp', LANG: 'C.UTF-8', USER: 'sandbox', ...extra };
}

/**
 * bubblewrap: every namespace unshared (user, pid, net, mount, ipc, uts, cgroup), the
 * environment's rootfs bound read-only as `/`, scratch bound at /work and /tmp, a fresh
 * /proc and minimal /dev, --die-with-parent, --new-session, our seccomp filter, and
 * bwrap itself started as an unprivileged host uid so the sandbox maps to nobody.
 * The command is held (`--block-fd`) until bwrap's processes are in the cgroup.
 */
export class BwrapRuntime implements SandboxRuntime {
  readonly name = 'bwrap';
  constructor(readonly binary = process.env.CRUCIBLE_BWRAP ?? 'bwrap') {}

  check(): void {
    const r = spawnSync(this.binary, ['--version'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      throw new SandboxError(
        `the bwrap runtime needs bubblewrap: \`${this.binary}\` is not installed or not runnable (${r.error?.message ?? r.stderr.trim()}). ` +
          'Install it with `apt-get install bubblewrap` (or `bash scripts/system-deps.sh`), or choose another --runtime.',
        'missing_runtime',
      );
    }
  }

  enforces(): Enforcement {
    const cg = cgroupLayout();
    const mode = cg.mode === 'v2' ? 'cgroup-v2' : cg.mode === 'v1' ? 'cgroup-v1' : 'none';
    return {
      namespaces: ['user', 'pid', 'net', 'mount', 'ipc', 'uts', 'cgroup'],
      readOnlyRoot: true,
      seccomp: true,
      network: 'loopback',
      memory: mode,
      cpu: mode,
      pids: mode,
      disk: process.getuid?.() === 0 ? 'tmpfs-size' : 'none',
      hostUid: process.getuid?.() === 0 ? 65534 : process.getuid!(),
    };
  }

  create(spec: SandboxSpec): Sandbox {
    return new BwrapSandbox(this, spec);
  }
}

const searchable = new Set<string>();

/** bwrap runs as the sandbox's host uid, which must be able to reach the paths it binds. */
function assertSearchable(target: string, uid: number, gid: number): void {
  if (uid === 0) return;
  for (let p = path.resolve(target); ; p = path.dirname(p)) {
    if (!searchable.has(p)) {
      const st = statSync(p);
      const ok = st.uid === uid ? st.mode & 0o100 : st.gid === gid ? st.mode & 0o010 : st.mode & 0o001;
      if (!ok) {
        throw new SandboxError(
          `${p} (mode ${(st.mode & 0o777).toString(8)}) cannot be searched by the sandbox's host uid ${uid}, so bwrap cannot bind ${target}. ` +
            `Run \`chmod o+x ${p}\`, or put CRUCIBLE_DATA_DIR / CRUCIBLE_ENV_STORE under a searchable directory.`,
          'config',
        );
      }
      searchable.add(p);
    }
    if (p === '/') return;
  }
}

export class BwrapSandbox extends Sandbox {
  protected override readonly gatedStart = true;
  private readonly seccompFile: string;
  private readonly egress?: EgressProxy;
  private readonly egressReady?: Promise<void>;

  constructor(readonly runtime: BwrapRuntime, spec: SandboxSpec) {
    super('bwrap', spec);
    try {
      for (const p of [spec.env.rootfs, this.scratch.work]) assertSearchable(p, this.hostUid, this.hostGid);
    } catch (e) {
      this.destroy();
      throw e;
    }
    this.seccompFile = path.join(this.dir, 'seccomp.bpf');
    writeFileSync(this.seccompFile, compileSeccompFilter());
    if (spec.allow?.length) {
      this.egress = new EgressProxy(path.join(this.dir, 'egress.sock'), spec.allow);
      this.egressReady = this.egress.listen();
      this.egressReady.catch(() => undefined);
    }
  }

  protected override onDestroy(): void {
    this.egress?.close();
  }

  args(ctx: LaunchContext): string[] {
    const proxy = `http://127.0.0.1:${PROXY_PORT}`;
    const env = sandboxEnv({
      ...(this.egress ? { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy } : {}),
      ...ctx.opts.env,
    });
    const a = [
      '--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      '--disable-userns', '--die-with-parent', '--new-session',
      '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID), '--hostname', 'sandbox',
      '--ro-bind', this.spec.env.rootfs, '/',
      '--proc', '/proc', '--dev', '/dev',
      '--bind', this.scratch.work, '/work', '--bind', this.scratch.tmp, '/tmp',
      '--chdir', ctx.opts.cwd ?? '/work', '--clearenv',
    ];
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    a.push('--seccomp', '3', '--info-fd', '4', '--block-fd', '5', '--', ...ctx.cmd);
    return a;
  }

  protected launch(ctx: LaunchContext): Launched {
    const seccompFd = openSync(this.seccompFile, 'r'); // a fresh fd each time: bwrap reads it to EOF
    const asRoot = process.getuid?.() === 0;
    let child: ChildProcess;
    const stdio: StdioOptions = ['pipe', 'pipe', 'pipe', seccompFd, 'pipe', 'pipe'];
    try {
      child = spawn(this.runtime.binary, this.args(ctx), {
        cwd: '/',
        env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv,
        stdio,
        ...(asRoot ? { uid: this.hostUid, gid: this.hostGid } : {}),
      });
    } finally {
      closeSync(seccompFd);
    }
    const extra = child.stdio as unknown as (Readable | Writable)[];
    const info = extra[4] as Readable;
    const block = extra[5] as Writable;
    block.on('error', () => undefined);
    // control sockets must not hold the child's 'close' (stdout/stderr still drain normally)
    child.once('exit', () => {
      info.destroy();
      block.destroy();
    });
    let forwarder: ChildProcess | undefined;
    const logFrom = this.egress?.log.length ?? 0;
    const ready = new Promise<void>((resolve, reject) => {
      let buf = '';
      const onData = (d: Buffer) => {
        buf += d.toString();
        const m = /"child-pid":\s*(\d+)/.exec(buf);
        if (!m) return;
        info.off('data', onData);
        const childPid = Number(m[1]);
        (async () => {
          // bwrap (the monitor) and its child, still blocked before exec, join the cgroup;
          // everything the command forks from here on is born inside it.
          if (child.pid) this.cgroup.addPid(child.pid);
          this.cgroup.addPid(childPid);
          if (this.egress) forwarder = await this.startForwarder(childPid);
          if (!(await ctx.gate())) throw new Error('environment verification did not pass');
          block.end('x');
        })().then(resolve, (e: Error) => reject(new SandboxError(`cannot confine sandbox processes: ${e.message}`)));
      };
      info.on('data', onData);
      info.on('error', () => undefined);
      child.once('close', () => reject(new SandboxError('bwrap exited before the command started')));
      child.once('error', reject);
    });
    ready.catch(() => undefined);
    return {
      child,
      ready,
      cleanup: () => forwarder?.kill('SIGKILL'),
      extra: () => (this.egress ? { egress: this.egress.log.slice(logFrom) } : {}),
    };
  }

  /**
   * The proxy forwarder: a host python3 entered into the sandbox's network namespace
   * only (host mount namespace, so it reaches the proxy's unix socket), running as the
   * sandbox's host uid inside its cgroup, so it dies with the exec.
   */
  private async startForwarder(childPid: number): Promise<ChildProcess> {
    await this.egressReady;
    const fwd = spawn('nsenter', [`--net=/proc/${childPid}/ns/net`, '--', 'setpriv', `--reuid=${this.hostUid}`, `--regid=${this.hostGid}`, '--clear-groups',
      'python3', '-c', FORWARDER, this.egress!.socketPath, String(PROXY_PORT)], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv });
    if (fwd.pid) this.cgroup.addPid(fwd.pid);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('egress forwarder did not start within 5 s')), 5000);
      let err = '';
      fwd.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      fwd.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      fwd.once('exit', (c) => {
        clearTimeout(timer);
        reject(new Error(`egress forwarder exited (${c}): ${err.trim()}`));
      });
      fwd.once('error', reject);
    });
    return fwd;
  }

  protected setupFailure(code: number | null, stderr: string): string | undefined {
    if (code === 1 && stderr.startsWith('bwrap: ')) return `bwrap failed to set up the sandbox: ${stderr.trim().split('\n')[0]}`;
    return undefined;
  }
}
