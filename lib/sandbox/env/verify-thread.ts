import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sharedLauncher } from '../runtimes/launcher';
import type { RuntimeOptions } from '../runtimes/options';
import type { Environment } from './env-manifest';
import { baselineFor, verifyEnvironmentFast, verifyEnvironmentFull, type FastBaseline, type VerifyResult } from './env-verify';

/**
 * The fast environment check off the main thread: in the launcher (launcher.c) where it
 * runs, else on a worker thread, so it runs while the main thread is busy
 * spawning bwrap (a fork) and bwrap builds the namespaces. Same comparison as
 * verifyEnvironmentFast; a difference is decided by the full re-hash on the main thread.
 * The worker is plain JS (eval) so it needs no TypeScript loader.
 */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const cache = new Map();
parentPort.on('message', (m) => {
  if (m.paths) cache.set(m.key, { paths: m.paths, sigs: m.sigs });
  const b = cache.get(m.key);
  if (!b) return parentPort.postMessage({ id: m.id, need: true });
  let ok = true;
  for (let i = 0; i < b.paths.length && ok; i++) {
    let sig;
    try {
      const s = lstatSync(b.paths[i], { bigint: true });
      sig = s.ino + ':' + s.mode + ':' + s.size + ':' + s.mtimeNs + ':' + s.ctimeNs;
    } catch { sig = undefined; }
    if (sig !== b.sigs[i]) ok = false;
  }
  parentPort.postMessage({ id: m.id, ok });
});
`;

type Reply = { id: number; ok?: boolean; need?: boolean };

class VerifyThread {
  private worker?: Worker;
  private next = 1;
  private readonly waiting = new Map<number, (r: Reply) => void>();
  private readonly sent = new Map<string, FastBaseline>();
  private broken = false;
  private idle?: NodeJS.Timeout;

  private get(): Worker | undefined {
    if (this.broken) return undefined;
    if (!this.worker) {
      try {
        this.worker = new Worker(WORKER, { eval: true });
        this.worker.unref();
        this.worker.on('message', (r: Reply) => {
          this.waiting.get(r.id)?.(r);
          this.waiting.delete(r.id);
        });
        this.worker.on('error', () => this.fail());
        this.worker.on('exit', () => this.fail());
      } catch {
        this.broken = true;
        return undefined;
      }
    }
    return this.worker;
  }

  private fail(): void {
    this.broken = true;
    this.worker = undefined;
    for (const [, resolve] of this.waiting) resolve({ id: 0, need: true });
    this.waiting.clear();
  }

  /** Stop the thread (it is restarted on demand); idle for 2 s it stops by itself. */
  close(): void {
    clearTimeout(this.idle);
    const w = this.worker;
    this.worker = undefined;
    this.sent.clear();
    this.slots.clear();
    if (w) {
      w.removeAllListeners('exit');
      void w.terminate();
    }
    for (const [, resolve] of this.waiting) resolve({ id: 0, need: true }); // checked inline instead
    this.waiting.clear();
  }

  private ask(key: string, b?: FastBaseline): Promise<Reply> {
    clearTimeout(this.idle);
    // a parked worker thread can keep a process from exiting under some loaders (tsx)
    this.idle = setTimeout(() => this.close(), 2000);
    this.idle.unref();
    const w = this.get();
    if (!w) return Promise.resolve({ id: 0, need: true });
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      w.postMessage(b ? { id, key, paths: b.paths, sigs: b.sigs } : { id, key });
    });
  }

  private readonly slots = new Map<string, { running?: Promise<VerifyResult>; queued?: Promise<VerifyResult> }>();

  /**
   * Start the check now; await the result later. Callers coalesce: while one check runs,
   * every new caller shares the single next one (which starts after the caller asked, so
   * it still sees any change made before), so bursts of starts never queue up checks.
   */
  verify(env: Environment, options: Pick<RuntimeOptions, 'launcher' | 'cc'>): Promise<VerifyResult> {
    let slot = this.slots.get(env.dir);
    if (!slot) this.slots.set(env.dir, (slot = {}));
    const s = slot;
    const launch = (): Promise<VerifyResult> => {
      const p = this.verifyNow(env, options).finally(() => {
        if (s.running === p) s.running = undefined;
      });
      s.running = p;
      return p;
    };
    if (!s.running) return launch();
    s.queued ??= s.running
      .catch(() => undefined)
      .then(() => {
        s.queued = undefined;
        return launch();
      });
    return s.queued;
  }

  private async verifyNow(env: Environment, options: Pick<RuntimeOptions, 'launcher' | 'cc'>): Promise<VerifyResult> {
    const t0 = performance.now();
    const b = baselineFor(env);
    // the launcher's C loop is several times cheaper than lstat from JS (see launcher.c)
    const launcher = sharedLauncher(path.dirname(env.dir), options);
    const viaLauncher = launcher ? await launcher.check(env.dir, b) : { need: true };
    if (!viaLauncher.need) {
      if (viaLauncher.ok) return { ok: true, mode: 'fast', problems: [], durationMs: performance.now() - t0 };
      return { ...verifyEnvironmentFull(env), durationMs: performance.now() - t0 };
    }
    const fresh = this.sent.get(env.dir) !== b; // a re-baseline replaces the object
    let r = await this.ask(env.dir, fresh ? b : undefined);
    if (r.need && !this.broken) r = await this.ask(env.dir, b);
    if (r.need) return verifyEnvironmentFast(env); // no worker thread: same check, inline
    this.sent.set(env.dir, b);
    if (r.ok) return { ok: true, mode: 'fast', problems: [], durationMs: performance.now() - t0 };
    const full = verifyEnvironmentFull(env);
    return { ...full, durationMs: performance.now() - t0 };
  }
}

export const verifyThread = new VerifyThread();
