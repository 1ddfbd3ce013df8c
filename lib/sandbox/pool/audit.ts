import { createHash } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { sandboxes } from '@/db/schema';
import type { Environment } from '../env/env-manifest';
import type { Sandbox } from '../runtimes/sandbox-runtime';
import type { ExecResult } from '../types';
import type { SandboxRecords } from '../ports';

/**
 * Audit rows for every sandbox lifecycle event and exec, plus the `sandboxes` table row
 * the resources view and leak sweeps read. Without records (no database) it does nothing, so
 * the library and CLI work standalone.
 */
export class SandboxAudit {
  private readonly db: Db | undefined;

  constructor(
    private readonly records: SandboxRecords | undefined,
    private readonly actor: string,
    private readonly workerId?: string,
  ) {
    this.db = records?.db;
  }

  private async append(action: string, sb: Sandbox, details: Record<string, unknown>): Promise<void> {
    if (!this.records) return;
    await this.records.audit.append({
      actor: this.actor,
      action,
      targetType: 'sandbox',
      targetId: sb.id,
      details: { runtime: sb.runtimeName, envHash: sb.envHash, ...details },
    });
  }

  async created(sb: Sandbox, env: Environment): Promise<void> {
    if (!this.db) return;
    await this.db.insert(sandboxes).values({
      id: sb.id,
      workerId: this.workerId ?? null,
      runtime: sb.runtimeName,
      envHash: env.hash,
      state: 'busy',
      limits: sb.spec.limits as unknown as Record<string, number>,
    });
    await this.append('sandbox.create', sb, { env: env.name, limits: sb.spec.limits });
  }

  async exec(sb: Sandbox, cmd: string[], r: ExecResult, ctx: { runId?: string; episodeId?: string }): Promise<void> {
    await this.append('sandbox.exec', sb, {
      runId: ctx.runId ?? null,
      episodeId: ctx.episodeId ?? null,
      commandSha256: createHash('sha256').update(JSON.stringify(cmd)).digest('hex'),
      limits: sb.spec.limits,
      status: r.status,
      exitCode: r.exitCode,
      signal: r.signal,
      durationMs: r.durationMs,
      usage: r.usage,
      stdoutTruncated: r.stdoutTruncated,
      stderrTruncated: r.stderrTruncated,
      ...(r.egress ? { egress: r.egress.map((e) => ({ host: e.host, port: e.port, allowed: e.allowed, bytesOut: e.bytesOut, bytesIn: e.bytesIn })) } : {}),
    });
  }

  /**
   * The row's live state for the resources view: `busy` while acquired, `warm` while pooled.
   * Not awaited by the caller (acquire stays sub-millisecond); one sandbox's writes are
   * chained so they land in order, and a failed write only leaves the view stale.
   */
  state(sb: Sandbox, state: 'busy' | 'warm'): void {
    if (!this.db) return;
    const db = this.db;
    const prev = this.stateWrites.get(sb.id) ?? Promise.resolve();
    const next = prev
      .then(() =>
        db
          .update(sandboxes)
          .set({ state, updatedAt: new Date() })
          .where(and(eq(sandboxes.id, sb.id), isNull(sandboxes.destroyedAt))),
      )
      .then(
        () => undefined,
        () => undefined,
      );
    this.stateWrites.set(sb.id, next);
    void next.then(() => {
      if (this.stateWrites.get(sb.id) === next) this.stateWrites.delete(sb.id);
    });
  }

  private readonly stateWrites = new Map<string, Promise<void>>();

  async envMismatch(sb: Sandbox, error: string): Promise<void> {
    await this.append('sandbox.env_mismatch', sb, { error: error.slice(0, 2000) });
  }

  async destroyed(sb: Sandbox): Promise<void> {
    if (!this.db) return;
    await this.stateWrites.get(sb.id);
    await this.db.update(sandboxes).set({ state: 'destroyed', destroyedAt: new Date(), updatedAt: new Date() }).where(eq(sandboxes.id, sb.id));
    await this.append('sandbox.destroy', sb, { execs: sb.execCount });
  }
}
