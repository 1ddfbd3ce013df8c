import { z } from 'zod';
import { environmentName } from '@/core/environments';
import { sandboxRuntimeName } from '@/core/sandbox-runtimes';
import { allowEntry, limitsInputSchema } from './types';

/**
 * What one sandboxed command needs, as a `sandbox.exec` job carries it. The library owns
 * the shape (it is what `SandboxManager.exec` takes); the worker app
 * (workers/sandbox-worker/handlers.ts) validates job payloads with it.
 */
export const sandboxExecPayload = z
  .object({
    cmd: z.array(z.string()).min(1, 'cmd needs at least the program'),
    runtime: sandboxRuntimeName.default('bwrap'),
    env: environmentName.default('default'),
    limits: limitsInputSchema.default({}),
    allow: z.array(allowEntry).default([]),
    /** files copied into the sandbox first; content is base64 */
    files: z.array(z.object({ dest: z.string(), contentBase64: z.string(), mode: z.number().int().optional() })).default([]),
    runId: z.uuid().optional(),
    episodeId: z.uuid().optional(),
  })
  .strict();
export type SandboxExecPayload = z.input<typeof sandboxExecPayload>;
