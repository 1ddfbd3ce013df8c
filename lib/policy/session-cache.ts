import { createSession, type LoadedSession, type Provider } from './onnx-session';

/**
 * A policy's onnxruntime sessions, one per graph key, built on first use and shared after
 * (a failed build is forgotten so the next call retries); `provider` is the one the latest
 * session ran on. Used by the byte policy and Hugging Face models alike.
 */
export class SessionCache {
  private readonly sessions = new Map<string, Promise<LoadedSession>>();
  provider: Provider = 'cpu';

  /** `build` makes the graph's bytes, for the provider being tried when they depend on it. */
  get(key: string, build: (provider: Provider) => Uint8Array, opts: { providers?: Provider[]; threads?: number; memArena?: boolean }): Promise<LoadedSession> {
    let s = this.sessions.get(key);
    if (!s) {
      s = createSession(build, opts);
      this.sessions.set(key, s);
      s.catch(() => this.sessions.delete(key));
    }
    return s.then((x) => {
      this.provider = x.provider;
      return x;
    });
  }

  async release(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) await (await s.catch(() => undefined))?.session.release();
  }
}
