import { z } from 'zod';
import { AGENT_TOOL_NAMES } from './repo-tasks';
import { sandboxRuntimeName } from './sandbox-runtimes';
import { SCHEDULING_TIERS } from './queues';
import { TOOL_CALL_FORMATS } from './tool-call-formats';

/**
 * The step API's contract (docs/agents.md, "A step API for other trainers"): an environment
 * session is one repository task's sandbox, held by a job worker for a trainer that is not
 * Crucible's learner. The service (server/env-sessions), the job that hosts a session
 * (workers/environments) and the plain-JSON route all read these. Imports nothing but core/.
 */

/** A session's life: starting (queued or setting up) → ready → closed | expired | failed | lost. */
export const ENV_SESSION_STATUSES = ['starting', 'ready', 'closed', 'expired', 'failed', 'lost'] as const;
export type EnvSessionStatus = (typeof ENV_SESSION_STATUSES)[number];
export const envSessionEnded = (s: EnvSessionStatus) => s !== 'starting' && s !== 'ready';

/** What a session's host is asked to do, in order: one request row each (env_session_requests). */
export const ENV_SESSION_REQUESTS = ['step', 'grade', 'close'] as const;
export type EnvSessionRequestKind = (typeof ENV_SESSION_REQUESTS)[number];

export const ENV_SESSION_LIMITS = {
  /** idle seconds before a session is closed for the trainer (default and most) */
  idleDefaultS: 600,
  idleMaxS: 3600,
  /** requests one session may make (steps, grades) */
  maxRequests: 2000,
  /** tool calls in one step */
  maxCallsPerStep: 16,
  /** how long one API call waits for the session's host before answering "still working" */
  waitMaxS: 600,
} as const;

const uuid = (what: string) => z.uuid(`${what} must be a uuid`);

/** reset: which task, on what runtime, with which tools; the task by id or by suite + its external id. */
export const envResetInput = z
  .object({
    taskId: uuid('taskId').optional(),
    suite: z.string().min(1).max(200).optional(),
    task: z.string().min(1).max(200).optional(),
    runtime: sandboxRuntimeName.default('bwrap'),
    /** the scheduler's tier the session's sandbox is admitted in */
    tier: z.enum(SCHEDULING_TIERS).default('standard'),
    /** the tools the session offers (default: all nine); calls to others are error observations */
    tools: z.array(z.enum(AGENT_TOOL_NAMES)).min(1).max(AGENT_TOOL_NAMES.length).optional(),
    /** how a `text` step is parsed (default hermes); the format's instructions come back in the first observation */
    toolCallFormat: z.enum(TOOL_CALL_FORMATS).default('hermes'),
    /** the bytes of a tool's output the agent sees */
    toolOutputBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(16 * 1024),
    idleTimeoutS: z.number().int().min(10).max(ENV_SESSION_LIMITS.idleMaxS).default(ENV_SESSION_LIMITS.idleDefaultS),
    /** seconds to wait for the sandbox to be ready before answering with status "starting" */
    waitS: z.number().int().min(0).max(ENV_SESSION_LIMITS.waitMaxS).default(120),
  })
  .strict()
  .refine((v) => (v.taskId !== undefined) !== (v.suite !== undefined && v.task !== undefined), {
    message: 'name the task either by taskId, or by suite and task (its id in the suite), not both',
  });
export type EnvResetInput = z.input<typeof envResetInput>;

/** A tool call as OpenAI's structured `tool_calls` carry it: arguments as an object or a JSON string. */
export const envToolCall = z
  .object({
    name: z.string().min(1).max(100),
    arguments: z.union([z.record(z.string(), z.unknown()), z.string().max(1024 * 1024)]).default({}),
    id: z.string().max(200).optional(),
  })
  .strict();
export type EnvToolCall = z.infer<typeof envToolCall>;

const sessionId = uuid('session');

/** step: structured calls, or the model's own text parsed in the session's tool-call format. */
export const envStepInput = z
  .object({
    session: sessionId,
    calls: z.array(envToolCall).min(1).max(ENV_SESSION_LIMITS.maxCallsPerStep).optional(),
    text: z
      .string()
      .max(1024 * 1024)
      .optional(),
    waitS: z.number().int().min(1).max(ENV_SESSION_LIMITS.waitMaxS).default(ENV_SESSION_LIMITS.waitMaxS),
  })
  .strict()
  .refine((v) => (v.calls === undefined) !== (v.text === undefined), {
    message: 'send either calls (structured tool calls) or text (a model message), not both',
  });
export type EnvStepInput = z.input<typeof envStepInput>;

export const envSessionInput = z.object({ session: sessionId }).strict();
export const envGradeInput = z
  .object({ session: sessionId, waitS: z.number().int().min(1).max(ENV_SESSION_LIMITS.waitMaxS).default(ENV_SESSION_LIMITS.waitMaxS) })
  .strict();

/** The request a host reads (env_session_requests.request). */
export const envSessionRequest = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('step'), calls: z.array(envToolCall).optional(), text: z.string().optional() }),
  z.object({ kind: z.literal('grade') }),
  z.object({ kind: z.literal('close') }),
]);
export type EnvSessionRequest = z.infer<typeof envSessionRequest>;

/** One tool call's observation. */
export type EnvObservation = { name: string; content: string; id?: string; error?: string; submitted?: boolean };

/** step's answer: an observation per call (or one saying no call was found), and whether the episode is over (submit). */
export type EnvStepResult = { observations: EnvObservation[]; done: boolean };

/** What the session offers the trainer at reset: the task, the tools and how to call them. */
export type EnvFirstObservation = {
  problemStatement: string;
  /**
   * the first user message Crucible's own agents get: the statement, where the repository is,
   * its layout (top two levels) and how to run its tests (lib/agent/episode/task-prompt.ts)
   */
  prompt: string;
  /** OpenAI-style function schemas of the offered tools */
  tools: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  /** a system prompt for the session's tool-call format (the one Crucible's own agents get) */
  systemPrompt: string;
};
