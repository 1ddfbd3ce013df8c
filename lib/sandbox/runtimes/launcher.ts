import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastBaseline } from '../env/env-verify';
import { nativeBinary } from './native';
import type { RuntimeOptions } from './options';
import { ownerAlive, ownerTag, parseOwnerTag } from '../pool/owner';
import type { RootPin } from './scratch';
import type { SupervisorHost } from './supervisor';

/**
 * The host end of launcher.c: one helper process per worker that mounts scratch tmpfs,
 * runs the environment's fast check and forks bwrap, each far cheaper than from Node (see
 * launcher.c for why and for the protocol). Shared by every sandbox manager in the
 * process; unreferenced, so it never keeps a process alive; restarted on demand if it dies.
 * CRUCIBLE_SANDBOX_LAUNCHER=0 (or no C compiler) turns it off: Node does all of it itself.
 */
/** `<tmpdir>/crucible-l-<owner>.XXXXXX/s`: the control socket's private directory */
const SOCKET_DIR_PREFIX = 'crucible-l-';
/** A unix socket path has at most 107 bytes: a long TMPDIR falls back to /tmp. */
const socketBase = () => (os.tmpdir().length <= 60 ? os.tmpdir() : '/tmp');
const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, n]) => [n, name]));
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

export type SpawnRequest = {
  argv: string[];
  uid: number;
  gid: number;
  /** read by bwrap as --seccomp 3 */
  seccompFile: string;
  /** bwrap's fd 6: what it runs as the sandbox's PID 1 (via /proc/self/fd/6) */
  exe: string;
  /** bwrap's (and the supervisor's) stderr goes here, for diagnostics */
  stderrFile: string;
  /** cgroup directories bwrap and its child are moved into before the reply */
  cgroupDirs: string[];
};

/** A bwrap started by the launcher: its control connection, pids and exit. */
export class LaunchedBwrap implements SupervisorHost {
  pid?: number;
  childPid?: number;
  socket?: net.Socket;
  exited = false;
  private how = '';
  private readonly waiters: ((how: string) => void)[] = [];

  constructor(
    private readonly launcher: Launcher,
    readonly id: number,
    private readonly stderrFile: string,
  ) {}

  onExit(cb: (how: string) => void): void {
    if (this.exited) queueMicrotask(() => cb(this.how));
    else this.waiters.push(cb);
  }

  /** @internal the launcher reaped it (or died itself) */
  settle(how: string): void {
    if (this.exited) return;
    this.exited = true;
    this.how = how;
    for (const cb of this.waiters.splice(0)) cb(how);
  }

  /** Let the sandbox's PID 1 start (bwrap's --block-fd). */
  go(): void {
    this.launcher.send('G', this.id);
  }

  kill(): void {
    if (!this.exited) this.launcher.send('K', this.id);
  }

  async stderr(): Promise<string> {
    if (!this.exited)
      await new Promise((r) => {
        this.onExit(r);
        setTimeout(r, 1000).unref();
      });
    try {
      const fd = openSync(this.stderrFile, 'r');
      try {
        const b = Buffer.alloc(4096);
        return b.subarray(0, readSync(fd, b, 0, b.length, 0)).toString();
      } finally {
        closeSync(fd);
      }
    } catch {
      return '';
    }
  }

  dispose(): void {
    this.socket?.destroy();
  }
}

type Reply = (payload: string) => void;

export class Launcher {
  private readonly child: ChildProcess;
  private readonly server: net.Server;
  private readonly sockDir: string;
  private readonly sockPath: string;
  private readonly listening: Promise<void>;
  private buf: Buffer = Buffer.alloc(0);
  private next = 1;
  private readonly replies = new Map<string, Reply>();
  private readonly procs = new Map<number, LaunchedBwrap>();
  private readonly connected = new Map<number, (s: net.Socket) => void>();
  private readonly sentBaselines = new Map<string, FastBaseline>();
  alive = true;
  private answered = false;

  /** the helper's pid (for diagnostics and the benchmark's leak check) */
  get pid(): number | undefined {
    return this.child.pid;
  }

  constructor(binary: string) {
    // a private directory: only this user can reach the control socket
    this.sockDir = mkdtempSync(path.join(socketBase(), `${SOCKET_DIR_PREFIX}${ownerTag()}.`));
    this.sockPath = path.join(this.sockDir, 's');
    this.server = net.createServer((s) => this.accept(s));
    this.listening = new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.sockPath, () => resolve());
    });
    this.listening.catch((e: Error) => {
      this.answered = false; // a launcher without its socket can never start a sandbox
      this.die(`its control socket ${this.sockPath} cannot listen: ${e.message}`);
    });
    this.server.unref();
    process.once('exit', this.removeSocketDir);
    this.child = spawn(binary, [String(process.pid)], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.unref();
    this.child.stdin!.on('error', () => undefined);
    this.child.stdout!.on('data', (d: Buffer) => this.onData(d));
    this.child.once('exit', (code, sig) => this.die(`exited (${sig ?? `code ${code}`})`));
    this.child.once('error', (e) => this.die(e.message));
    this.refs();
  }

  private readonly removeSocketDir = () => rmSync(this.sockDir, { recursive: true, force: true });

  /** Only in-flight requests keep the process alive, never the launcher itself. */
  private refs(): void {
    const waiting = this.replies.size > 0 || this.connected.size > 0 || this.procs.size > 0;
    for (const h of [this.child.stdout as net.Socket | null, this.child.stdin as unknown as net.Socket | null, this.server]) {
      if (waiting) h?.ref();
      else h?.unref();
    }
  }

  private die(why: string): void {
    if (!this.alive) return;
    this.alive = false;
    if (shared === this) shared = undefined;
    // one that never got going will not do better next time: Node takes over for good
    if (!this.answered) startupFailure = `the sandbox launcher could not start (${why}); Node mounts, checks and spawns instead`;
    this.server.close();
    this.removeSocketDir();
    process.off('exit', this.removeSocketDir);
    for (const [, r] of this.replies) r(`error: the sandbox launcher ${why}`);
    this.replies.clear();
    // its bwraps ran with --die-with-parent: they are gone too
    for (const p of this.procs.values()) p.settle(`the sandbox launcher ${why}`);
    this.procs.clear();
  }

  private accept(s: net.Socket): void {
    s.on('error', () => undefined);
    const onReadable = () => {
      const head = s.read(4) as Buffer | null;
      if (!head) return;
      s.off('readable', onReadable);
      const id = head.readUInt32LE(0);
      const waiter = this.connected.get(id);
      this.connected.delete(id);
      if (waiter) waiter(s);
      else s.destroy();
      this.refs();
    };
    s.on('readable', onReadable);
  }

  private onData(d: Buffer): void {
    this.answered = true;
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (this.buf.length >= 9) {
      const len = this.buf.readUInt32LE(5);
      if (this.buf.length < 9 + len) break;
      const op = String.fromCharCode(this.buf[0]!);
      const id = this.buf.readUInt32LE(1);
      const payload = this.buf.subarray(9, 9 + len).toString();
      this.buf = this.buf.subarray(9 + len);
      if (op === 'D') {
        const [code, sig] = payload.split(' ').map(Number);
        this.procs.get(id)?.settle(sig ? (SIGNAL_NAMES.get(sig) ?? `signal ${sig}`) : `code ${code}`);
        this.procs.delete(id);
        continue;
      }
      const r = this.replies.get(op + id);
      this.replies.delete(op + id);
      r?.(payload);
    }
    this.refs();
  }

  /** @internal */
  send(op: string, id: number, strings: string[] = []): void {
    if (!this.alive) return;
    const body = Buffer.concat([Buffer.from(op), u32(id), ...strings.map((s) => Buffer.from(`${s}\0`))]);
    this.child.stdin!.write(Buffer.concat([u32(body.length), body]));
  }

  private request(op: string, strings: string[], id = this.next++): Promise<string> {
    if (!this.alive) return Promise.resolve('error: the sandbox launcher is not running');
    return new Promise((resolve) => {
      this.replies.set(op + id, resolve);
      this.refs();
      this.send(op, id, strings);
    });
  }

  /**
   * The fast check of an environment against `b` (sent once per baseline object).
   * ok: every signature matches (watched: known from inotify without comparing them all);
   * false: one differs (the caller re-hashes to decide).
   */
  async check(key: string, b: FastBaseline): Promise<{ ok?: boolean; need?: boolean; watched?: boolean }> {
    if (this.sentBaselines.get(key) !== b) {
      const pairs: string[] = [key];
      for (let i = 0; i < b.paths.length; i++) pairs.push(b.paths[i]!, b.sigs[i] ?? '');
      this.send('B', 0, pairs);
      this.sentBaselines.set(key, b);
    }
    const r = await this.request('V', [key]);
    if (r.startsWith('ok')) return { ok: true, watched: r === 'ok watched' };
    return r === 'diff' ? { ok: false } : { need: true };
  }

  /**
   * A size-capped tmpfs on `root` with work/ and tmp/ owned by uid:gid (root only), and
   * root/, the rootfs's view (scratch.ts); resolves to the rootfs directory the view pins.
   */
  async mountScratch(root: string, sizeMb: number, uid: number, gid: number, rootfs: string): Promise<RootPin> {
    const r = await this.request('M', [root, String(sizeMb), String(uid), String(gid), rootfs]);
    const m = /^root (\d+) (\d+)$/.exec(r);
    if (!m) throw new Error(r.replace(/^error: /, '') || 'the launcher did not mount the rootfs view');
    return { dev: BigInt(m[1]!), ino: BigInt(m[2]!) };
  }

  /**
   * Start bwrap; resolves once bwrap and its child are in the cgroups (the child still held
   * on --block-fd until `go()`) and the control connection is up, or with the error.
   */
  async spawnBwrap(req: SpawnRequest): Promise<{ proc: LaunchedBwrap } | { error: string; proc?: LaunchedBwrap }> {
    await this.listening.catch(() => undefined);
    if (!this.alive) return { error: 'the sandbox launcher is not running' };
    const id = this.next++;
    const proc = new LaunchedBwrap(this, id, req.stderrFile);
    this.procs.set(id, proc);
    const socket = new Promise<net.Socket | undefined>((resolve) => {
      this.connected.set(id, resolve);
      proc.onExit(() => {
        this.connected.delete(id);
        this.refs();
        resolve(undefined);
      });
    });
    const r = await this.request(
      'S',
      [
        this.sockPath,
        req.stderrFile,
        req.seccompFile,
        req.exe,
        String(req.uid),
        String(req.gid),
        String(req.cgroupDirs.length),
        ...req.cgroupDirs,
        ...req.argv,
      ],
      id,
    );
    const m = /^(\d+) (\d+)$/.exec(r);
    if (!m) {
      this.connected.delete(id);
      this.refs();
      void socket.then((s) => s?.destroy());
      return { error: r.replace(/^error: /, ''), proc };
    }
    proc.pid = Number(m[1]);
    proc.childPid = Number(m[2]);
    proc.socket = await socket;
    if (!proc.socket) return { error: 'bwrap exited before its control connection was up', proc };
    return { proc };
  }
}

/** Control-socket directories of dead workers (a killed worker cannot remove its own). */
export function sweepDeadLauncherDirs(): string[] {
  const removed: string[] = [];
  const tmp = socketBase();
  let names: string[] = [];
  try {
    names = readdirSync(tmp);
  } catch {
    return removed; // no usable temporary directory: no launcher could have used it either
  }
  for (const name of names) {
    if (!name.startsWith(SOCKET_DIR_PREFIX)) continue;
    const owner = parseOwnerTag(name.slice(SOCKET_DIR_PREFIX.length));
    if (!owner || ownerAlive(owner)) continue;
    rmSync(path.join(tmp, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

let shared: Launcher | undefined;
let unavailable: string | undefined;
let startupFailure: string | undefined;

/** The process's launcher (started on first use), or undefined where it cannot run. */
export function sharedLauncher(binDir: string, options: Pick<RuntimeOptions, 'launcher' | 'cc'>): Launcher | undefined {
  if (!options.launcher) return undefined;
  if (shared?.alive) return shared;
  if (startupFailure) {
    unavailable = startupFailure;
    return undefined;
  }
  const { binary, reason } = nativeBinary('launcher.c', binDir, options.cc);
  unavailable = reason;
  if (!binary) return undefined;
  try {
    shared = new Launcher(binary);
  } catch (e) {
    unavailable = startupFailure = `the sandbox launcher could not start (${(e as Error).message}); Node mounts, checks and spawns instead`;
    return undefined;
  }
  return shared;
}

export function launcherUnavailable(): string | undefined {
  return unavailable;
}
