import { z } from 'zod';
import { alertThresholdOverrides, WEBHOOK_FORMATS } from '@/core/alerts';

/**
 * Process settings, read from the environment once and validated here (create-t3-app `env`
 * style). This is the only module that reads `process.env` (lint enforces it): entry points
 * call `settings()`, libraries and services take what they need as parameters, tests build
 * theirs with `parseSettings({...})`. A bad value fails at start with the variable's name.
 * Every field has a `.describe()`: README's configuration table is generated from them
 * (`npm run settings:table`; core/settings.test.ts fails while README differs).
 */
/** A JSON-valued setting: parsed and validated, with the variable's problem reported by name. */
function parseJsonSetting<T>(v: string | undefined, schema: z.ZodType<T>, ctx: z.RefinementCtx, fallback: T): T {
  if (v === undefined) return fallback;
  let raw: unknown;
  try {
    raw = JSON.parse(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `not JSON: ${(e as Error).message}` });
    return z.NEVER;
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    ctx.addIssue({ code: 'custom', message: r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ') });
    return z.NEVER;
  }
  return r.data;
}
const alertWebhooks = z
  .array(
    z
      .object({
        name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a receiver name: letters, digits, _ . -'),
        url: z
          .string()
          .url()
          .refine((u) => /^https?:/.test(u), 'an http(s) URL'),
        format: z.enum(WEBHOOK_FORMATS).default('json'),
      })
      .strict(),
  )
  .max(20)
  .refine((a) => new Set(a.map((r) => r.name)).size === a.length, 'receiver names must be unique');

const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const bytes = z.coerce.number().int().positive();
const port = z.coerce.number().int().min(1).max(65535);
const pid = z.coerce.number().int().positive();
const fraction = z.coerce.number().min(0).max(0.95);
/** Empty counts as unset (a `VAR=` line in a shell or .env file). */
const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const count = z.preprocess(unsetIfEmpty, z.coerce.number().int().nonnegative());
const positiveInt = z.preprocess(unsetIfEmpty, z.coerce.number().int().positive());
const positiveNumber = z.preprocess(unsetIfEmpty, z.coerce.number().finite().positive());

export const settingsSchema = z.object({
  // Web server and database
  PORT: port.default(3000).describe('console port'),
  CRUCIBLE_DATA_DIR: z.string().default('.data').describe('embedded database, environments, checkpoints; two instances need two dirs'),
  DATABASE_URL: z
    .string()
    .optional()
    .describe('use this PostgreSQL instead of the embedded one (left untouched otherwise), connecting as the application role (see Database roles)'),
  DATABASE_OWNER_URL: z
    .string()
    .optional()
    .describe(
      'with `DATABASE_URL`: the role that owns the schema; migrations run as it and it grants the application role its rights. Unset: `DATABASE_URL` must own the schema to migrate it',
    ),
  CRUCIBLE_ALLOW_SUPERUSER: flag
    .default(false)
    .describe('set to `1` to let `DATABASE_URL` be a superuser, a role with CREATEROLE or a member of the server file/program roles (refused otherwise)'),
  CRUCIBLE_ADMIN_PASSWORD: z.string().optional().describe("the first admin's password (unset: generated and printed once by `npm start`)"),
  CRUCIBLE_MAX_BODY_BYTES: bytes.default(1024 * 1024).describe('larger request bodies to `/api/trpc` are refused with 413 before they are buffered'),
  CRUCIBLE_MAX_BATCH: positiveInt
    .default(20)
    .describe('most calls one `/api/trpc` batch request may hold (more: 413, none run); the console batches at most 10'),
  CRUCIBLE_MAX_IMPORT_BYTES: bytes.default(64 * 1024 * 1024).describe('largest task file `crucible tasks import` and `POST /api/tasks/import` accept'),
  // Repository task and model import (server/paths/import-path-policy.ts; docs/security.md, "Task import paths", "Model import")
  CRUCIBLE_IMPORT_ROOTS: z
    .preprocess(
      unsetIfEmpty,
      z
        .string()
        .transform((v) => v.split(':').filter((d) => d !== ''))
        .pipe(z.array(z.string().refine((d) => d.startsWith('/'), { message: 'each import root is an absolute directory' })))
        .optional(),
    )
    .transform((v) => v ?? [])
    .describe(
      "`:`-separated absolute directories that repository task lines may name as local workspaces (`workspace.dir`/`tarball`/`git`, SWE-bench `repo_path`) and that `models.import` may read over the API. Over the API nothing else is readable (unset: local-path workspaces and API model imports are refused; inline `files` always work); the in-process CLI may also read the task file's own directory tree, or the model directory it names. Symbolic links and `..` are resolved before the check",
    ),
  CRUCIBLE_REPO_MIRRORS: z
    .preprocess(
      unsetIfEmpty,
      z
        .string()
        .refine((v) => v.startsWith('/') || /^(https?|ssh|git|file):\/\//.test(v), {
          message: 'an absolute directory of git mirrors, or a git URL base (https://, ssh://, git://, file://)',
        })
        .optional(),
    )
    .describe(
      'where SWE-bench lines that name `repo` (`owner/name`) and no `repo_path` are read from: an absolute directory holding each repository as `owner__name.git`, `owner__name` or `owner/name` (bare mirrors or clones; symbolic links and git directories must stay inside it), or a git URL base cloned from as `URL/owner/name` into `<CRUCIBLE_DATA_DIR>/repo-mirrors`. `crucible tasks import --repos DIR` sets it for one import; over the API only this is read (unset: such lines are refused)',
    ),
  CRUCIBLE_WORKSPACE_MAX_FILES: positiveInt
    .default(5000)
    .describe('most files one repository task workspace may hold (import, `crucible episode run --task-file`)'),
  CRUCIBLE_WORKSPACE_MAX_BYTES: positiveInt
    .default(64 * 1024 * 1024)
    .describe('largest total size of one repository task workspace, in bytes (stored in the database: raising it grows `repo_workspaces` rows)'),
  CRUCIBLE_TRUST_PROXY: flag
    .default(false)
    .describe(
      "set to `1` behind a reverse proxy that overwrites `X-Forwarded-Proto`/`-Host`/`-For`: TLS there makes session cookies `Secure`, the forwarded host is what the CSRF `Origin` check compares, and login throttling counts per the proxy's last `X-Forwarded-For` hop. Leave off when clients reach the server directly (they could forge those headers); login throttling is still per client address then, from the TCP peer that `npm start`'s web server (`scripts/web-server.mjs`) records for each request",
    ),
  CRUCIBLE_METRICS_TOKEN: z
    .string()
    .optional()
    .describe('when set, `/api/metrics` requires `Authorization: Bearer <token>` (unset: open, like most exporters)'),
  CRUCIBLE_NEXT_DIST: z.string().default('.next').describe('where `npm start` builds and serves the Next.js app (also read by `next.config.mjs`)'),
  // CLI
  CRUCIBLE_URL: z.string().optional().describe('the CLI calls this console over HTTP (as `--url`) instead of the database in-process'),
  CRUCIBLE_TOKEN: z.string().optional().describe('API token for `CRUCIBLE_URL` (as `--token`)'),
  // Workers and the job queue
  CRUCIBLE_JOB_WORKERS: count.default(1).describe('job-worker processes `npm start` runs (as `--job-workers`)'),
  CRUCIBLE_JOB_HANDLERS: z
    .string()
    .optional()
    .describe('module exporting `handlers: JobHandler[]` for job workers (as `--handlers`; unset: workers/job-worker/registry.ts)'),
  CRUCIBLE_JOB_CONCURRENCY: positiveInt.default(2).describe('jobs at once in each job-worker process (as `--concurrency`)'),
  CRUCIBLE_QUEUE_POLL_MS: positiveInt.default(2_000).describe('job workers poll this often when no NOTIFY arrives (as `--poll-ms`)'),
  CRUCIBLE_JOB_DRAIN_MS: positiveInt.default(5_000).describe('on stop, how long a job worker lets in-flight jobs finish (as `--drain-ms`)'),
  CRUCIBLE_WORKER_HEARTBEAT_MS: positiveInt.default(5_000).describe('how often workers heartbeat their registration'),
  CRUCIBLE_WORKER_STALE_MS: positiveInt.default(30_000).describe('after how long without a heartbeat the maintenance worker declares a worker lost'),
  CRUCIBLE_SCHEDULER_STALE_MS: positiveInt
    .default(15_000)
    .describe('how long after its last heartbeat a scheduler still counts as running (without one, scheduled jobs are claimed without admission)'),
  CRUCIBLE_METRICS_INTERVAL_MS: positiveInt.default(5_000).describe('how often the metrics worker samples node and cluster figures'),
  CRUCIBLE_RESERVE_FRACTION: z
    .preprocess(unsetIfEmpty, fraction.optional())
    .describe(
      "share of capacity held back for the critical tier, 0 to 0.95; overrides a scheduler config file's `reserveFraction` (unset: the file's value, else 0.3)",
    ),
  // Logs (server/logs; every process's JSON lines, shipped to the log_records table)
  CRUCIBLE_LOG_LEVEL: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
    .default('info')
    .describe('lowest level a process writes to stdout (JSON lines)'),
  CRUCIBLE_LOG_SHIP_LEVEL: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'off'])
    .default('info')
    .describe(
      "lowest level each process ships to the database (`log_records`: the console's /logs, `crucible logs`, the episode timeline); `off` ships nothing",
    ),
  CRUCIBLE_LOG_FLUSH_MS: positiveInt.default(1_000).describe('each process ships its buffered log records this often (and when a batch fills, and on stop)'),
  CRUCIBLE_LOG_BUFFER: positiveInt
    .default(10_000)
    .describe('log records a process holds while the database is slow or away; past this the oldest are dropped and one record says how many'),
  CRUCIBLE_LOG_RETENTION_DAYS: positiveNumber.default(7).describe('the maintenance worker deletes log records older than this'),
  CRUCIBLE_LOG_MAX_ROWS: positiveInt.default(1_000_000).describe('the maintenance worker keeps at most this many log records (the newest)'),
  // Alerts (workers/alerts; docs/monitoring.md)
  CRUCIBLE_ALERT_EVAL_MS: positiveInt.default(15_000).describe('how often the maintenance worker evaluates the alert rules and delivers notifications'),
  CRUCIBLE_ALERT_GROUP_INTERVAL_S: positiveInt
    .default(300)
    .describe("a group's firing notification is updated at most this often while its alerts change (Alertmanager's group_interval)"),
  CRUCIBLE_ALERT_WEBHOOKS: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .transform((v, ctx) => parseJsonSetting(v, alertWebhooks, ctx, []))
    .describe(
      'JSON list of webhook receivers, e.g. `[{"name":"ops","url":"https://hooks.slack.com/…","format":"slack"}]`; `format` is `json` (Alertmanager\'s webhook payload, the default) or `slack`',
    ),
  CRUCIBLE_ALERT_THRESHOLDS: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .transform((v, ctx) => parseJsonSetting(v, alertThresholdOverrides, ctx, {}))
    .describe('JSON object overriding the alert rules\' default thresholds cluster-wide, e.g. `{"klMax":1}` (names in docs/monitoring.md)'),
  CRUCIBLE_CONSOLE_URL: z
    .preprocess(unsetIfEmpty, z.string().url().optional())
    .describe("the console's address as people reach it, for links in alert notifications (unset: `http://localhost:PORT`)"),
  // Scheduler (lib/scheduler) and its nodes
  CRUCIBLE_SCHEDULER_CONFIG: z
    .string()
    .optional()
    .describe("scheduler config, inline JSON or a JSON file (unset: three tiers over the live nodes' capacity; docs/scheduler.md)"),
  CRUCIBLE_SCHEDULER_TICK_MS: positiveInt.default(250).describe('the scheduler passes at least this often'),
  CRUCIBLE_SCHEDULER_EVICT_GRACE_MS: positiveInt.default(30_000).describe('a preempted job its worker did not stop within this is taken back'),
  CRUCIBLE_SCHEDULER_NODE_LEASE_MS: positiveInt.optional().describe("a silent node's work is re-queued after this (unset: the config's, 30000)"),
  CRUCIBLE_SCHEDULER_NODE_SUSPECT_MS: positiveInt.optional().describe("a node silent this long gets no new work (unset: the config's)"),
  CRUCIBLE_SCHEDULER_MIN_RUN_MS: count.optional().describe("work younger than this is never preempted (unset: the config's, 60000)"),
  CRUCIBLE_NODE: z.string().optional().describe("this machine's node name for the scheduler (unset: the hostname)"),
  CRUCIBLE_NODE_CPUS: z.string().optional().describe('CPUs this node offers the scheduler (unset: measured)'),
  CRUCIBLE_NODE_MEMORY_MB: z.string().optional().describe('memory (MB) this node offers the scheduler (unset: measured)'),
  CRUCIBLE_NODE_GPUS: z.string().optional().describe('GPUs this node offers the scheduler (unset: nvidia-smi)'),
  CRUCIBLE_NODE_GPU_MEMORY_MB: z.string().optional().describe('GPU memory (MB) per GPU this node offers the scheduler (unset: nvidia-smi)'),
  CRUCIBLE_NODE_DISK_MB: z.string().optional().describe('scratch disk (MB) this node offers the scheduler (unset: measured free space)'),
  // Artifacts (lib/artifacts; docs/scale-out.md)
  CRUCIBLE_ARTIFACT_BACKEND: z
    .enum(['local', 'database', 's3'])
    .optional()
    .describe(
      'where checkpoints and other artifacts live, by sha256: `local` (a directory on this host), `database` (chunked in PostgreSQL) or `s3` (unset: `database` with `DATABASE_URL`, else `local`)',
    ),
  CRUCIBLE_ARTIFACT_DIR: z.string().optional().describe("the `local` backend's directory (unset: `<CRUCIBLE_DATA_DIR>/artifacts/store`)"),
  CRUCIBLE_ARTIFACT_CACHE_MB: positiveInt
    .default(4096)
    .describe("this host's cache of fetched artifacts (`<CRUCIBLE_DATA_DIR>/artifacts/cache`), least recently used evicted past this size"),
  CRUCIBLE_S3_ENDPOINT: z.string().url().optional().describe('`s3` backend: the S3-compatible endpoint, e.g. `http://minio:9000` (unset: AWS)'),
  CRUCIBLE_S3_BUCKET: z.string().optional().describe('`s3` backend: the bucket (required with `CRUCIBLE_ARTIFACT_BACKEND=s3`)'),
  CRUCIBLE_S3_PREFIX: z.string().default('crucible/artifacts/').describe('`s3` backend: key prefix of artifacts in the bucket'),
  CRUCIBLE_S3_REGION: z.string().default('us-east-1').describe('`s3` backend: region'),
  CRUCIBLE_S3_ACCESS_KEY_ID: z.string().optional().describe("`s3` backend: access key (unset: the AWS SDK's default credential chain)"),
  CRUCIBLE_S3_SECRET_ACCESS_KEY: z.string().optional().describe('`s3` backend: secret key'),
  CRUCIBLE_S3_FORCE_PATH_STYLE: flag.default(true).describe('`s3` backend: path-style URLs (`endpoint/bucket/key`), as most self-hosted servers need'),
  // Sandboxes (lib/sandbox) and the policy (lib/policy)
  CRUCIBLE_ENV_STORE: z.string().optional().describe('where built environments live (unset: `<CRUCIBLE_DATA_DIR>/envs`)'),
  CRUCIBLE_BWRAP: z.string().default('bwrap').describe('the bubblewrap binary the `bwrap` runtime runs'),
  CRUCIBLE_SANDBOX_LAUNCHER: flag
    .default(true)
    .describe('`0`: no host-side launcher (launcher.c); Node mounts scratch, checks environments and spawns bwrap itself'),
  CRUCIBLE_SANDBOX_SUPERVISOR: flag.default(true).describe('`0`: no PID-1 supervisor in bwrap sandboxes, one bwrap per exec (slower warm execs)'),
  CRUCIBLE_RUNSC: z
    .string()
    .default('runsc')
    .describe(
      "gVisor's `runsc` binary the `gvisor` runtime (`oci:runsc`) runs; tests point it at a path that does not exist to stand for a host without gVisor",
    ),
  CRUCIBLE_OCI_RUNTIME: z.string().optional().describe('the OCI runtime the `oci` runtime name means: crun (unset), runc, runsc, kata-runtime or youki'),
  CC: z.string().default('gcc').describe('C compiler that builds the sandbox supervisor and launcher (static, once per source version)'),
  CRUCIBLE_SANDBOX_CONCURRENCY: positiveInt.default(2).describe('`sandbox.exec` jobs at once in the sandbox worker (as `--concurrency`)'),
  CRUCIBLE_ENV_VERIFY_MS: positiveInt.default(3_600_000).describe('the sandbox worker re-hashes every environment this often'),
  CRUCIBLE_POLICY_THREADS: positiveInt.optional().describe('onnxruntime threads per policy session (unset: the CPUs, at most 8)'),
  CRUCIBLE_POLICY_ORT_LOG: z.enum(['verbose', 'info', 'warning', 'error', 'fatal']).default('fatal').describe("onnxruntime's log level"),
  CRUCIBLE_BENCH_PYTHON: z
    .string()
    .optional()
    .describe('`npm run bench learner`: the python with torch to compare against (unset: /usr/bin/python3, then python3)'),
  CRUCIBLE_BENCH_CPU_PROFILE: z
    .string()
    .optional()
    .describe("`npm run bench console`: a directory for a V8 CPU profile of each page's measured window (unset: none)"),
  // Set by one Crucible process for the ones it starts (not for users)
  CRUCIBLE_START_PARENT: pid.optional().describe('internal: set by `npm start` for its detached session (the pid it watches)'),
  CRUCIBLE_PARENT_PID: pid.optional().describe('internal: set by the supervisor for its workers, which exit when that process is gone'),
  CRUCIBLE_SKIP_BROWSER: z
    .enum(['0', '1'])
    .optional()
    .describe(
      "`1`: `scripts/system-deps.sh` skips the test-only packages: Chromium (browser tests) and Ceph's radosgw, ceph-mon, ceph-osd (the S3 artifact tests' server); `npm start` sets `1` unless set",
    ),
  // Development and tests
  TEST_DATABASE_URL: z.string().optional().describe('tests use this server instead of starting a throwaway embedded one'),
  CRUCIBLE_TEST_LEASE_MS: positiveInt
    .default(1_500)
    .describe('tests only: lease of the job handlers in `workers/*/fixtures` (set by the tests that start real workers)'),
  E2E_VERBOSE: flag.default(false).describe("`npm run test:e2e`: `1` relays the app's output to the terminal (it is always in `<data>/app.log`)"),
  CRUCIBLE_LEARNING_TEST_LR: positiveNumber
    .optional()
    .describe(
      'test knob: the learning rate `workers/rl/learning.system.test.ts` and `workers/rl/stories-learning.system.test.ts` train with (unset: their configured rate; set it to show the tests fail without learning)',
    ),
  DIFFERENTIAL_DIRECT_ONLY: flag.default(false).describe('test knob: `1` runs only the direct half of `workers/rl/reward/differential.test.ts`'),
  DIFFERENTIAL_REPORT: z.string().optional().describe('test knob: write `workers/rl/reward/differential.test.ts` verdicts as JSON to this file'),
  E2E_KEEP: flag.default(false).describe("`npm run test:e2e`: `1` keeps the run's data dir and app log even when the specs pass"),
  // RL loop knobs a run's config does not carry (workers/rl; docs/rl.md)
  CRUCIBLE_RL_SFT_STEPS: count.default(250).describe("SFT warm-start steps on the suite's train demonstrations before iteration 0 (0 = off)"),
  CRUCIBLE_RL_SFT_LR: positiveNumber.default(3e-3).describe("Peak learning rate of the warm start (the RL phase uses the run's learningRate)"),
  CRUCIBLE_RL_MAX_NEW_TOKENS: positiveInt.default(40).describe('New tokens per turn'),
  CRUCIBLE_RL_FEEDBACK_BYTES: positiveInt.default(120).describe("Bytes of earlier turns' code + feedback kept in the prompt"),
  CRUCIBLE_RL_HELDOUT_LIMIT: count.default(0).describe('Held-out tasks evaluated per iteration (greedy pass@1); 0 = all'),
  CRUCIBLE_RL_PASS_K: count
    .default(4)
    .describe('Held-out pass@k: k sampled attempts per task (0 = off), every CRUCIBLE_RL_PASS_K_EVERY iterations and at the start and end'),
  CRUCIBLE_RL_PASS_K_EVERY: count.default(5).describe('held-out pass@k runs every this many iterations (and at the start and end)'),
  CRUCIBLE_RL_TEST_TIMEOUT_MS: positiveInt
    .default(2000)
    .describe(
      "Per-test limit of reward scoring (one call into the candidate), in the candidate's CPU time; wall clock only as a ceiling of max(4×, +3 s), whose expiry on a busy host leaves the run unscored (docs/reward.md)",
    ),
  CRUCIBLE_RL_INFRA_RETRIES: count.default(1).describe('Infrastructure-failed episodes are re-run this many times before being masked'),
  CRUCIBLE_RL_INFRA_FAIL_RATE: z
    .preprocess(unsetIfEmpty, z.coerce.number().gt(0).max(1))
    .default(0.5)
    .describe(
      "A run fails when more than this share of an iteration's episodes are infrastructure failures (1 = never): its sandboxes are broken, not its policy",
    ),
  CRUCIBLE_RL_LEASE_MS: positiveInt.optional().describe("Lease of every RL queue's jobs (unset: each queue's own); tests that kill workers use a short one"),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Parse settings from an environment object; throws an error naming each bad variable. */
export function parseSettings(env: Record<string, string | undefined>): Settings {
  // Empty counts as unset everywhere (a `VAR=` line in a shell or .env file), never as a value.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = settingsSchema.safeParse(given);
  if (!result.success) {
    const what = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid setting: ${what} (see the README's configuration table)`);
  }
  return result.data;
}

/**
 * The environment for a child process: this process's environment with `defaults` under it
 * (the caller's own values win) and `set` over it (an `undefined` removes the variable). The
 * one other place that reads `process.env`: children inherit PATH, HOME and the like, which
 * are not Crucible settings.
 */
export function childEnv(set: Record<string, string | undefined> = {}, defaults: Record<string, string> = {}): NodeJS.ProcessEnv {
  const merged: Record<string, string | undefined> = { ...defaults, ...process.env, ...set };
  // ProcessEnv is what spawn() takes (Next's types make NODE_ENV a required key of it).
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined)) as NodeJS.ProcessEnv;
}

let cached: Settings | undefined;
/** This process's settings, parsed on first use. */
export function settings(): Settings {
  cached ??= parseSettings(process.env);
  return cached;
}

/** The RL loop's knobs (workers/rl), named for what they do. */
export function rlSettings(s: Settings) {
  return {
    sftSteps: s.CRUCIBLE_RL_SFT_STEPS,
    sftLearningRate: s.CRUCIBLE_RL_SFT_LR,
    maxNewTokens: s.CRUCIBLE_RL_MAX_NEW_TOKENS,
    feedbackBudget: s.CRUCIBLE_RL_FEEDBACK_BYTES,
    heldoutLimit: s.CRUCIBLE_RL_HELDOUT_LIMIT,
    passAtK: s.CRUCIBLE_RL_PASS_K,
    passAtKEvery: s.CRUCIBLE_RL_PASS_K_EVERY,
    testTimeoutMs: s.CRUCIBLE_RL_TEST_TIMEOUT_MS,
    infraRetries: s.CRUCIBLE_RL_INFRA_RETRIES,
    infraFailRate: s.CRUCIBLE_RL_INFRA_FAIL_RATE,
    /** a queue's lease: CRUCIBLE_RL_LEASE_MS when set, else the queue's own */
    leaseMs: (queueDefault: number) => s.CRUCIBLE_RL_LEASE_MS ?? queueDefault,
  };
}
export type RlSettings = ReturnType<typeof rlSettings>;

/** The RL knobs for one run: its config's held-out settings over the deployment's. */
export function runRlSettings<S extends Pick<RlSettings, 'heldoutLimit' | 'passAtK' | 'passAtKEvery'>>(
  s: S,
  config: { heldout?: { tasks?: number; passAtK?: number; passAtKEvery?: number } },
): S {
  const h = config.heldout ?? {};
  return { ...s, heldoutLimit: h.tasks ?? s.heldoutLimit, passAtK: h.passAtK ?? s.passAtK, passAtKEvery: h.passAtKEvery ?? s.passAtKEvery };
}
