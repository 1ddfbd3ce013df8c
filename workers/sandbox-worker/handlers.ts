import type { Db } from '@/db/client';
import { JOB_QUEUES } from '@/core/queues';
import { jobHandler, PermanentJobError, type JobHandler } from '@/workers/jobs/job-handler';
import { SandboxManager, type ManagerOptions } from '@/lib/sandbox/pool/manager';
import type { SandboxRecords } from '@/lib/sandbox/ports';
import { SandboxError } from '@/lib/sandbox/types';
import { dataDir, envStoreDir } from '@/db/open-database';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * The sandbox worker's job handler: runs the payload's command in a pooled sandbox and
 * stores the exec result (the CLI contract's object) as the job result. A missing
 * runtime or bad payload dead-letters the job at once: retrying cannot fix it.
 * `recordsFor` turns the job's database into the manager's records (audit, `sandboxes`
 * rows, environment registry, quarantine); the worker entry point passes
 * server/environments' `sandboxRecords`, and without it nothing is recorded.
 */
export function sandboxHandlers(options: Partial<ManagerOptions> & { recordsFor?: (db: Db) => SandboxRecords } = {}): {
  handlers: JobHandler[];
  manager: () => SandboxManager | undefined;
} {
  let manager: SandboxManager | undefined;
  const handler = jobHandler(JOB_QUEUES.sandboxExec, {
    leaseMs: 60_000,
    run: async (job, ctx) => {
      // checked against the queue's schema by the job loop (a bad one is dead-lettered)
      const p = job.payload;
      const { recordsFor, ...managerOptions } = options;
      manager ??= new SandboxManager({
        dataDir: dataDir(),
        storeDir: envStoreDir(),
        runtime: runtimeOptions(settings()),
        records: recordsFor?.(ctx.db),
        actor: `worker:${ctx.workerId}`,
        workerId: ctx.workerId,
        ...managerOptions,
      });
      try {
        const result = await manager.exec(
          {
            runtime: p.runtime,
            env: p.env,
            limits: p.limits,
            allow: p.allow,
            files: p.files.map((f) => ({ dest: f.dest, data: Buffer.from(f.contentBase64, 'base64'), mode: f.mode })),
          },
          p.cmd,
          {},
          { runId: p.runId, episodeId: p.episodeId },
        );
        return async () => result as unknown as Record<string, unknown>;
      } catch (e) {
        if (e instanceof SandboxError && (e.kind === 'missing_runtime' || e.kind === 'config')) throw new PermanentJobError(e.message);
        throw e;
      }
    },
  });
  return { handlers: [handler], manager: () => manager };
}
