import { z } from 'zod';

// The subset of OpenAI's Chat Completions and Completions requests Crucible serves
// (docs/policy.md, "An OpenAI-compatible endpoint"), validated as the official clients send
// them. Unknown fields are ignored, as OpenAI-compatible servers do (clients add new ones).

const stop = z.union([z.string(), z.array(z.string()).max(4)]).optional();

const sampling = {
  model: z.string().min(1, 'model: name a registered model (GET /v1/models lists them)'),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).default(1),
  top_p: z.number().gt(0).max(1).default(1),
  /** vLLM's extension; 0 or -1 off */
  top_k: z.number().int().min(-1).default(0),
  n: z.number().int().min(1).max(16).default(1),
  seed: z.number().int().optional(),
  stop,
  stream: z.boolean().default(false),
  stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
  /** vLLM's extensions: the prompt's and each choice's token ids in the response */
  return_token_ids: z.boolean().default(false),
  return_tokens_as_token_ids: z.boolean().default(false),
};

const text = z.union([z.string(), z.array(z.object({ type: z.literal('text'), text: z.string() }).loose())]);
/** Message content as text: the content parts of type text, joined. */
export const contentText = (c: z.infer<typeof text> | null | undefined) => (c == null ? '' : typeof c === 'string' ? c : c.map((p) => p.text).join(''));

const toolCall = z
  .object({ id: z.string().optional(), type: z.literal('function').default('function'), function: z.object({ name: z.string(), arguments: z.string() }) })
  .loose();

export const chatMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: text }).loose(),
  z.object({ role: z.literal('developer'), content: text }).loose(),
  z.object({ role: z.literal('user'), content: text }).loose(),
  z.object({ role: z.literal('assistant'), content: text.nullish(), tool_calls: z.array(toolCall).optional() }).loose(),
  z.object({ role: z.literal('tool'), content: text, tool_call_id: z.string().optional(), name: z.string().optional() }).loose(),
]);
export type ChatMessageInput = z.infer<typeof chatMessage>;

export const chatTool = z
  .object({
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }).loose(),
  })
  .loose();

export const chatCompletionRequest = z
  .object({
    ...sampling,
    messages: z.array(chatMessage).min(1, 'messages: send at least one message'),
    tools: z.array(chatTool).optional(),
    tool_choice: z.union([z.literal('auto'), z.literal('none'), z.object({}).loose()]).optional(),
    logprobs: z.boolean().default(false),
    top_logprobs: z.number().int().min(0).max(20).optional(),
  })
  .loose();
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

export const completionRequest = z
  .object({
    ...sampling,
    prompt: z.union([z.string(), z.array(z.number().int().min(0)).min(1)]),
    /** the n likeliest tokens at each position (the legacy Completions API's `logprobs`) */
    logprobs: z.number().int().min(0).max(20).nullish(),
    echo: z.boolean().default(false),
  })
  .loose();
export type CompletionRequest = z.infer<typeof completionRequest>;
