import { JOBS_CHANNEL } from '@/core/queues';
import type { Sql } from '@/db/client';

export type WakeReason = 'notified' | 'timeout' | 'aborted';

/**
 * Wakes idle workers when a job is enqueued on one of their queues (LISTEN/NOTIFY), with
 * the timeout as the polling fallback for what NOTIFY never announces (retries whose
 * backoff ended, leases that expired) and for notifications lost while reconnecting.
 *
 * Race-free use: take `mark()` BEFORE claiming, and pass it to `wait()` after an empty
 * claim; a notification that arrived in between makes `wait()` return at once.
 */
export class JobWakeup {
  private generation = 0;
  private wakers = new Set<() => void>();
  private unlisten?: () => Promise<void>;

  private constructor(private readonly queues: ReadonlySet<string>) {}

  static async listen(sql: Sql, queues: string[]): Promise<JobWakeup> {
    const w = new JobWakeup(new Set(queues));
    const req = await sql.listen(
      JOBS_CHANNEL,
      (queue) => {
        if (w.queues.has(queue)) w.bump();
      },
      // Also called after postgres.js reconnects the listener: anything may have been missed.
      () => w.bump(),
    );
    w.unlisten = () => req.unlisten();
    return w;
  }

  private bump(): void {
    this.generation++;
    for (const wake of this.wakers) wake();
    this.wakers.clear();
  }

  mark(): number {
    return this.generation;
  }

  wait(since: number, timeoutMs: number, signal?: AbortSignal): Promise<WakeReason> {
    if (signal?.aborted) return Promise.resolve('aborted');
    if (this.generation !== since) return Promise.resolve('notified');
    return new Promise((resolve) => {
      const done = (reason: WakeReason) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wakers.delete(onWake);
        resolve(reason);
      };
      const onWake = () => done('notified');
      const onAbort = () => done('aborted');
      const timer = setTimeout(() => done('timeout'), timeoutMs);
      this.wakers.add(onWake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    await this.unlisten?.().catch(() => {});
    this.bump();
  }
}
