import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { CappedCapture } from './capture';
import { nativeBinary } from './native';
import type { RuntimeOptions } from './options';

/**
 * The warm-sandbox supervisor (supervisor.c): built once per source version with the
 * host's gcc as a static binary, so it needs nothing inside the environment, and run by
 * bwrap as PID 1 of a long-lived sandbox. Each exec is then one request over a pipe
 * instead of a new bwrap (fork of this process, namespace and mount setup).
 */
let reason: string | undefined;

/**
 * Path of the compiled supervisor, compiling it on first use; undefined (with the reason
 * in `supervisorUnavailable()`) where no C compiler or static libc is installed, in which
 * case sandboxes fall back to one bwrap per exec.
 */
export function supervisorBinary(dir: string, options: Pick<RuntimeOptions, 'supervisor' | 'cc'>): string | undefined {
  if (!options.supervisor) return undefined;
  const r = nativeBinary('supervisor.c', dir, options.cc);
  reason = r.reason && `${r.reason} for warm sandboxes`;
  return r.binary;
}

export function supervisorUnavailable(): string | undefined {
  return reason;
}

export type SupervisorRequest = { cmd: string[]; env: Record<string, string>; cwd: string; stdin: Buffer; outputCap: number };
export type SupervisorExit =
  | {
      kind: 'exit';
      code: number | null;
      signal: number;
      userUs: number;
      sysUs: number;
      maxRssKb: number;
      outTotal: number;
      errTotal: number;
      execError?: string;
    }
  | { kind: 'lost'; error: string };

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/**
 * The host-side process a supervisor runs under: bwrap as a child of this worker, or a
 * bwrap the launcher started (launcher.ts).
 */
export interface SupervisorHost {
  readonly exited: boolean;
  /** once, with how it ended: a signal name or "code N" */
  onExit(cb: (how: string) => void): void;
  kill(): void;
  /** what bwrap or the supervisor printed on stderr (waits up to 1 s for the exit) */
  stderr(): Promise<string>;
  /** close the host's ends of its pipes or sockets */
  dispose(): void;
}

/**
 * A process spawned by this worker as the supervisor's host (bwrap, runsc, QEMU).
 * `explain` turns what it printed on stderr into the message a lost supervisor reports
 * (runsc and QEMU add what their logs and the guest's console say).
 */
export function childHost(child: ChildProcess, explain: (stderr: string) => string = (text) => text): SupervisorHost {
  let text = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (text.length < 4096) text += d.toString();
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    get exited() {
      return exited();
    },
    onExit(cb) {
      if (exited()) queueMicrotask(() => cb(child.signalCode ?? `code ${child.exitCode}`));
      else child.once('exit', (code, sig) => cb(sig ?? `code ${code}`));
    },
    kill: () => child.kill('SIGKILL'),
    async stderr() {
      if (!exited()) {
        await new Promise((r) => {
          child.once('exit', r);
          setTimeout(r, 1000).unref();
        });
      }
      await new Promise((r) => setImmediate(r)); // the last stderr chunk
      return explain(text);
    },
    dispose: () => {
      for (const s of child.stdio) s?.destroy();
    },
  };
}

/**
 * The host end of one supervisor: frames requests onto its input, parses its output
 * frames, and reports when it is gone (bwrap exited), which fails any exec in flight.
 */
export class SupervisorChannel {
  private buf: Buffer = Buffer.alloc(0);
  private current?: { out: CappedCapture; err: CappedCapture; resolve: (e: SupervisorExit) => void; execError?: string };
  private wipeWaiter?: (r: string) => void;
  alive = true;
  /** why it stopped, for the execs that find it gone */
  private lostReason?: string;
  /** true once the supervisor reported ready, false if it was lost first (a microVM waits for it: its boot is not the command's time) */
  readonly ready: Promise<boolean>;
  private onReady: (ok: boolean) => void = () => undefined;

  constructor(
    readonly host: SupervisorHost,
    private readonly input: Writable,
    output: Readable,
  ) {
    this.ready = new Promise((resolve) => (this.onReady = resolve));
    input.on('error', () => undefined);
    output.on('data', (d: Buffer) => this.onData(d));
    host.onExit((how) => {
      void host.stderr().then((text) => this.lost(`the sandbox supervisor exited (${how})${text.trim() ? `: ${text.trim()}` : ''}`));
    });
  }

  private lost(error: string): void {
    if (!this.alive) return;
    this.alive = false;
    this.lostReason = error;
    this.onReady(false);
    this.wipeWaiter?.(`dirty: ${error}`);
    const c = this.current;
    this.current = undefined;
    c?.resolve({ kind: 'lost', error });
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (this.buf.length >= 5) {
      const len = this.buf.readUInt32LE(1);
      if (this.buf.length < 5 + len) break;
      const type = String.fromCharCode(this.buf[0]!);
      const payload = this.buf.subarray(5, 5 + len);
      this.buf = this.buf.subarray(5 + len);
      this.dispatch(type, payload);
    }
  }

  private dispatch(type: string, p: Buffer): void {
    const c = this.current;
    if (type === 'O') c?.out.push(p);
    else if (type === 'E') c?.err.push(p);
    else if (type === 'F' && c) c.execError = p.toString();
    else if (type === 'X' && c) {
      const [code, signal, userUs, sysUs, maxRssKb, outTotal, errTotal] = p.toString().split(' ').map(Number) as number[];
      this.current = undefined;
      c.resolve({
        kind: 'exit',
        code: code! < 0 ? null : code!,
        signal: signal!,
        userUs: userUs!,
        sysUs: sysUs!,
        maxRssKb: maxRssKb!,
        outTotal: outTotal!,
        errTotal: errTotal!,
        execError: c.execError,
      });
    } else if (type === 'W') {
      const w = this.wipeWaiter;
      this.wipeWaiter = undefined;
      w?.(p.toString());
    } else if (type === 'R') this.onReady(true); // no answer needed: requests may already be queued behind it
  }

  private send(payload: Buffer[]): void {
    const len = payload.reduce((n, b) => n + b.length, 0);
    this.input.write(Buffer.concat([u32(len), ...payload]));
  }

  run(req: SupervisorRequest, out: CappedCapture, err: CappedCapture): Promise<SupervisorExit> {
    if (!this.alive) return Promise.resolve({ kind: 'lost', error: this.lostReason ?? 'the sandbox supervisor is not running' });
    const envPairs = Object.entries(req.env).map(([k, v]) => `${k}=${v}`);
    const strings = [req.cwd, ...req.cmd, ...envPairs];
    const head = Buffer.concat([Buffer.from('X'), u32(req.outputCap), u32(req.cmd.length), u32(envPairs.length), u32(req.stdin.length)]);
    return new Promise((resolve) => {
      this.current = { out, err, resolve };
      this.send([head, Buffer.from(strings.join('\0') + '\0'), req.stdin]);
    });
  }

  /** SIGKILL everything in the sandbox but the supervisor (the wall-clock timeout). */
  kill(): void {
    if (this.alive) this.send([Buffer.from('K')]);
  }

  /** Clean what an exec may leave outside scratch; "clean", or "dirty …" when the sandbox must be restarted. */
  wipe(): Promise<string> {
    if (!this.alive) return Promise.resolve('dirty: supervisor not running');
    return new Promise((resolve) => {
      this.wipeWaiter = resolve;
      this.send([Buffer.from('W')]);
    });
  }

  /**
   * Stop using this supervisor. bwrap exits by itself once its child (the supervisor, which
   * the sandbox kills first) is gone; only a bwrap still there after a second is killed.
   */
  close(reason = 'the sandbox was shut down while the command ran'): void {
    this.lost(reason); // an exec in flight ends now instead of waiting for a frame that never comes
    this.host.dispose();
    if (!this.host.exited) {
      const t = setTimeout(() => this.host.kill(), 1000);
      t.unref();
      this.host.onExit(() => clearTimeout(t));
    }
  }
}
