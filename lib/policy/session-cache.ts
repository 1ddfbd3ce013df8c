import { createSession, type LoadedSession, type Provider } from './onnx-session';

/**
 * A policy's onnxruntime sessions, one per graph key, built on first use and shared after
 * (a failed build is forgotten so the next call retries); `provider` is the one the latest
 * session ran on. Used by the byte policy and Hugging Face models alike.
 */
export class SessionCache {
  private readonly sessions = new Map<string, Promise<LoadedSession>>();
  provider: Provider = 'cpu';

  /**
   * `maxSessions`: keep at most this many, releasing the least recently used past it. Each
   * session keeps its peak allocation in onnxruntime's CPU arena, and a trainer builds one per
   * batch shape: at agent-episode lengths (T² attention) that is a GB or more each, and an
   * unbounded cache ran a machine out of memory. Only for an owner whose calls never overlap
   * (a trainer: each step or scoring call is awaited before the next), since an evicted
   * session is released at once.
   */
  constructor(private readonly o: { maxSessions?: number } = {}) {}

  /** `build` makes the graph's bytes, for the provider being tried when they depend on it. */
  get(key: string, build: (provider: Provider) => Uint8Array, opts: { providers?: Provider[]; threads?: number }): Promise<LoadedSession> {
    let s = this.sessions.get(key);
    if (s) {
      // most recently used last: Map keeps insertion order
      this.sessions.delete(key);
      this.sessions.set(key, s);
    } else {
      s = createSession(build, opts);
      this.sessions.set(key, s);
      s.catch(() => this.sessions.delete(key));
      this.evict();
    }
    return s.then((x) => {
      this.provider = x.provider;
      return x;
    });
  }

  /** How many sessions are held (built or being built). */
  get size(): number {
    return this.sessions.size;
  }

  private evict(): void {
    const max = this.o.maxSessions;
    if (max === undefined) return;
    for (const [key, s] of this.sessions) {
      if (this.sessions.size <= max) break;
      this.sessions.delete(key);
      void s.then((x) => x.session.release()).catch(() => {});
    }
  }

  async release(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) await (await s.catch(() => undefined))?.session.release();
  }
}
