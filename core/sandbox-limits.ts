import { z } from 'zod';

// What one sandbox may use, and where its egress proxy may forward: shared by the sandbox library
// (lib/sandbox), run configs and the sandbox.exec job payload (core/job-payloads.ts).

/** Resource limits for one sandbox. Defaults follow the issue: 2 vCPU / 4 GB / 50 GB scratch. */
export const limitsSchema = z
  .object({
    cpus: z.number().positive().max(64).default(2),
    memoryMb: z
      .number()
      .int()
      .min(16)
      .max(1024 * 1024)
      .default(4096),
    diskMb: z
      .number()
      .int()
      .min(1)
      .max(10 * 1024 * 1024)
      .default(50 * 1024),
    pids: z.number().int().min(8).max(1_000_000).default(512),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .max(24 * 3600_000)
      .default(60_000),
    /** per stream; output beyond it is discarded and flagged as truncated */
    outputBytes: z
      .number()
      .int()
      .min(0)
      .max(256 * 1024 * 1024)
      .default(1024 * 1024),
  })
  .strict();
export type Limits = z.output<typeof limitsSchema>;
/** The same fields, all optional and without defaults (so "not given" stays visible). */
export const limitsInputSchema = z
  .object(
    Object.fromEntries(Object.entries(limitsSchema.shape).map(([k, v]) => [k, v.unwrap().optional()])) as {
      [K in keyof typeof limitsSchema.shape]: z.ZodOptional<ReturnType<(typeof limitsSchema.shape)[K]['unwrap']>>;
    },
  )
  .strict();
export type LimitsInput = z.input<typeof limitsSchema>;
export const defaultLimits: Limits = limitsSchema.parse({});

/** `host:port` an egress proxy may forward to. */
export const allowEntry = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'allow entries look like HOST:PORT, e.g. pypi.org:443');
