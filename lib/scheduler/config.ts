import { z } from 'zod';
import type { SchedulingTier } from '@/core/queues';
import { RESOURCE_KEYS, type Resources } from '@/core/resources';
import type { SchedulerConfig } from './types';

// Validated scheduler configuration. The core trusts its typed input (it runs every tick);
// configuration coming from files, the CLI or the database goes through `parseSchedulerConfig`.

const partialResources = z
  .object(
    Object.fromEntries(RESOURCE_KEYS.map((k) => [k, z.number().nonnegative().optional()])) as Record<
      (typeof RESOURCE_KEYS)[number],
      z.ZodOptional<z.ZodNumber>
    >,
  )
  .strict();

export const tierSchema = z.object({
  name: z.string().min(1),
  rank: z.number().int(),
  useReserve: z.boolean().default(false),
  canPreempt: z.boolean().default(true),
  starvationBoundMs: z
    .number()
    .positive()
    .default(10 * 60_000),
});

export const queueSchema = z.object({
  name: z.string().min(1),
  tier: z.string().min(1),
  cohort: z.string().min(1).optional(),
  nominal: partialResources.default({}),
  borrowingLimit: partialResources.optional(),
});

export const schedulerConfigSchema = z
  .object({
    tiers: z.array(tierSchema).min(1),
    queues: z.array(queueSchema).default([]),
    reserveFraction: z.number().min(0).max(0.95).default(0.3),
    leaseMs: z.number().positive().default(30_000),
    suspectAfterMs: z.number().positive().default(10_000),
    minRunTimeMs: z.number().nonnegative().default(60_000),
    backoff: z
      .object({ baseMs: z.number().nonnegative().default(5_000), maxMs: z.number().nonnegative().default(300_000) })
      .default({ baseMs: 5_000, maxMs: 300_000 }),
    cpuWorkOnGpuNodes: z.boolean().default(false),
  })
  .superRefine((c, ctx) => {
    const tiers = new Set(c.tiers.map((t) => t.name));
    if (tiers.size !== c.tiers.length) ctx.addIssue({ code: 'custom', message: 'tier names must be unique' });
    const queues = new Set<string>();
    for (const q of c.queues) {
      if (!tiers.has(q.tier)) ctx.addIssue({ code: 'custom', message: `queue ${q.name}: unknown tier ${q.tier}` });
      if (queues.has(q.name)) ctx.addIssue({ code: 'custom', message: `queue ${q.name} is defined twice` });
      queues.add(q.name);
    }
  });

/** Parse and default a configuration; every tier without a queue gets an unlimited one of its name. */
export function parseSchedulerConfig(input: unknown): SchedulerConfig {
  const parsed = schedulerConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new Error(`invalid scheduler config: ${z.prettifyError(parsed.error)}`);
  }
  const c = parsed.data;
  const queues = [...c.queues];
  for (const t of c.tiers) {
    if (!queues.some((q) => q.name === t.name)) queues.push({ name: t.name, tier: t.name, nominal: {} });
  }
  return { ...c, queues };
}

export const DEFAULT_TIERS = [
  { name: 'critical', rank: 2, useReserve: true, canPreempt: true, starvationBoundMs: 1_000 },
  { name: 'standard', rank: 1, useReserve: false, canPreempt: true, starvationBoundMs: 5 * 60_000 },
  { name: 'best-effort', rank: 0, useReserve: false, canPreempt: false, starvationBoundMs: 15 * 60_000 },
] as const satisfies readonly { name: SchedulingTier; [setting: string]: unknown }[];

/**
 * The usual layout: one cohort, the critical queue's nominal share equal to the reserve,
 * standard and best-effort splitting the rest and borrowing each other's idle share.
 */
export function defaultConfig(total: Resources, overrides: Partial<SchedulerConfig> = {}): SchedulerConfig {
  const reserveFraction = overrides.reserveFraction ?? 0.3;
  const part = (f: number): Partial<Resources> => Object.fromEntries(RESOURCE_KEYS.map((k) => [k, total[k] * f])) as Partial<Resources>;
  const lower = 1 - reserveFraction;
  return parseSchedulerConfig({
    tiers: DEFAULT_TIERS.map((t) => ({ ...t })),
    queues: [
      { name: 'critical', tier: 'critical', cohort: 'cluster', nominal: part(reserveFraction), borrowingLimit: part(0.2) },
      { name: 'standard', tier: 'standard', cohort: 'cluster', nominal: part(lower * 0.55), borrowingLimit: part(lower * 0.45) },
      { name: 'best-effort', tier: 'best-effort', cohort: 'cluster', nominal: part(lower * 0.45), borrowingLimit: part(lower * 0.55) },
    ],
    reserveFraction,
    ...overrides,
  });
}
