import { spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { CappedCapture } from './capture';

/**
 * The warm-sandbox supervisor (supervisor.c): built once per source version with the
 * host's gcc as a static binary, so it needs nothing inside the environment, and run by
 * bwrap as PID 1 of a long-lived sandbox. Each exec is then one request over a pipe
 * instead of a new bwrap (fork of this process, namespace and mount setup).
 */
const SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'supervisor.c');

let built: { binary?: string; reason?: string } | undefined;

/**
 * Path of the compiled supervisor under `<dir>/bin/`, compiling it on first use; undefined
 * (with the reason in `supervisorUnavailable()`) where no C compiler or static libc is
 * installed, in which case sandboxes fall back to one bwrap per exec.
 */
export function supervisorBinary(dir: string): string | undefined {
  if (process.env.CRUCIBLE_SANDBOX_SUPERVISOR === '0') return undefined;
  if (built) return built.binary;
  try {
    const src = readFileSync(SOURCE);
    const tag = createHash('sha256').update(src).update(process.arch).digest('hex').slice(0, 16);
    const binDir = path.join(dir, 'bin');
    const binary = path.join(binDir, `crucible-supervisor-${tag}`);
    if (!existsSync(binary)) {
      mkdirSync(binDir, { recursive: true, mode: 0o755 });
      const tmp = `${binary}.${process.pid}.tmp`;
      const cc = process.env.CC ?? 'gcc';
      const r = spawnSync(cc, ['-static', '-O2', '-o', tmp, SOURCE], { encoding: 'utf8' });
      if (r.error || r.status !== 0) {
        rmSync(tmp, { force: true });
        built = { reason: `cannot compile ${SOURCE} with ${cc} -static (${r.error?.message ?? r.stderr.trim().split('\n').slice(-3).join(' ')}); install gcc and libc6-dev for warm sandboxes` };
        return undefined;
      }
      chmodSync(tmp, 0o755); // bwrap runs as the sandbox's host uid and must execute it
      renameSync(tmp, binary); // concurrent builders converge on the same content
    }
    built = { binary };
    return binary;
  } catch (e) {
    built = { reason: `supervisor unavailable: ${(e as Error).message}` };
    return undefined;
  }
}

export function supervisorUnavailable(): string | undefined {
  return built?.reason;
}

export type SupervisorRequest = { cmd: string[]; env: Record<string, string>; cwd: string; stdin: Buffer; outputCap: number };
export type SupervisorExit =
  | { kind: 'exit'; code: number | null; signal: number; userUs: number; sysUs: number; maxRssKb: number; outTotal: number; errTotal: number; execError?: string }
  | { kind: 'lost'; error: string };

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/**
 * The host end of one supervisor: frames requests onto its stdin, parses its stdout
 * frames, and reports when it is gone (bwrap exited), which fails any exec in flight.
 */
export class SupervisorChannel {
  private buf: Buffer = Buffer.alloc(0);
  private current?: { out: CappedCapture; err: CappedCapture; resolve: (e: SupervisorExit) => void; execError?: string };
  private wipeWaiter?: (r: string) => void;
  private readyWaiter?: (ok: boolean) => void;
  private stderrText = '';
  alive = true;

  constructor(readonly child: ChildProcess, private readonly input: Writable, output: Readable) {
    input.on('error', () => undefined);
    output.on('data', (d: Buffer) => this.onData(d));
    child.stderr?.on('data', (d: Buffer) => {
      if (this.stderrText.length < 4096) this.stderrText += d.toString();
    });
    child.once('exit', (code, sig) => this.lost(`the sandbox supervisor exited (${sig ?? `code ${code}`})${this.stderrText ? `: ${this.stderrText.trim()}` : ''}`));
  }

  /** What bwrap or the supervisor printed on stderr, once it has exited (bwrap's setup errors). */
  async diagnostics(): Promise<string> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await new Promise((r) => {
        this.child.once('exit', r);
        setTimeout(r, 1000).unref();
      });
    }
    await new Promise((r) => setImmediate(r)); // the last stderr chunk
    return this.stderrText.trim().slice(0, 2000) || 'no message';
  }

  /** Resolves true once the supervisor reports ready (false if it died first). */
  ready(): Promise<boolean> {
    if (!this.alive) return Promise.resolve(false);
    return new Promise((resolve) => (this.readyWaiter = resolve));
  }

  private lost(error: string): void {
    if (!this.alive) return;
    this.alive = false;
    this.readyWaiter?.(false);
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
      c.resolve({ kind: 'exit', code: code! < 0 ? null : code!, signal: signal!, userUs: userUs!, sysUs: sysUs!, maxRssKb: maxRssKb!, outTotal: outTotal!, errTotal: errTotal!, execError: c.execError });
    } else if (type === 'W') {
      const w = this.wipeWaiter;
      this.wipeWaiter = undefined;
      w?.(p.toString());
    } else if (type === 'R') {
      this.readyWaiter?.(true);
      this.readyWaiter = undefined;
    }
  }

  private send(payload: Buffer[]): void {
    const len = payload.reduce((n, b) => n + b.length, 0);
    this.input.write(Buffer.concat([u32(len), ...payload]));
  }

  run(req: SupervisorRequest, out: CappedCapture, err: CappedCapture): Promise<SupervisorExit> {
    if (!this.alive) return Promise.resolve({ kind: 'lost', error: 'the sandbox supervisor is not running' });
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
  close(): void {
    this.alive = false;
    for (const s of this.child.stdio) s?.destroy();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const t = setTimeout(() => this.child.kill('SIGKILL'), 1000);
      t.unref();
      this.child.once('exit', () => clearTimeout(t));
    }
  }
}
