import { randomUUID } from 'node:crypto';
import type { Db } from '@/db/client';
import { toolCallFormatFor } from '@/lib/agent/tools/call-formats/registry';
import type { HfCompletion, HfPolicy } from '@/lib/policy/hf/hf-policy';
import type { ChatMessage } from '@/lib/policy/hf/tokenizer';
import { DomainError } from '@/server/errors';
import { assistantMessage } from './assistant-message';
import { withLoadedModel } from './loaded-models';
import { contentText, type ChatCompletionRequest, type ChatMessageInput, type CompletionRequest } from './openai-schema';

// OpenAI-compatible completions over a registered model (docs/policy.md, "An OpenAI-compatible
// endpoint"): the conversation rendered with the model's own chat template (tools included),
// sampled with the KV-cache sampler, tool calls parsed in the model's format. Plain data in,
// plain data out; server/http/openai-routes.ts speaks HTTP and SSE.

type Sampled = { completion: HfCompletion; text: string; finish: 'stop' | 'length' };
export type StreamSink = (chunk: Record<string, unknown>) => void;

const now = () => Math.floor(Date.now() / 1000);

/** OpenAI's stop strings: cut at the first one (the completion then ended by `stop`). */
function cutAtStop(text: string, stops: string[]): { text: string; stopped: boolean } {
  let at = -1;
  for (const s of stops) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at < 0 ? { text, stopped: false } : { text: text.slice(0, at), stopped: true };
}

const stopList = (s: string | string[] | undefined) => (s === undefined ? [] : typeof s === 'string' ? [s] : s);

/**
 * Tokens one request may hold in its batch, n × (prompt + max_tokens): the KV cache and the
 * attention grow with it, and the web process serves everyone else meanwhile.
 */
export const MAX_BATCH_TOKENS = 65_536;
/** max_tokens when the request names none (within the context and the batch budget). */
export const DEFAULT_MAX_TOKENS = 1024;

/** How many tokens may be sampled: the request's cap (default DEFAULT_MAX_TOKENS), within the model's context and the batch budget. */
function budget(policy: HfPolicy, prompt: number[], req: { n: number; max_tokens?: number; max_completion_tokens?: number }): number {
  const ctx = policy.config.maxPositionEmbeddings;
  const asked = req.max_completion_tokens ?? req.max_tokens;
  const room = ctx - prompt.length;
  if (room <= 0 || (asked !== undefined && asked > room))
    throw new DomainError(
      'BAD_REQUEST',
      `this model's context is ${ctx} tokens; the prompt is ${prompt.length}${asked !== undefined ? ` and max_tokens ${asked}` : ''}: shorten the messages or lower max_tokens`,
    );
  const n = asked ?? Math.min(room, DEFAULT_MAX_TOKENS);
  if (req.n * (prompt.length + n) > MAX_BATCH_TOKENS)
    throw new DomainError(
      'BAD_REQUEST',
      `n × (prompt + max_tokens) is ${req.n} × (${prompt.length} + ${n}) = ${req.n * (prompt.length + n)} tokens, more than one request may hold (${MAX_BATCH_TOKENS}); lower n or max_tokens`,
    );
  return n;
}

/**
 * Sample `n` completions of `prompt`. A row ends at a stop string as soon as its text holds one
 * (its tokens end with the one that completed it; the text is cut before it), and every row ends
 * when `signal` aborts (the client went away). `onText` streams each row's text as it grows.
 */
async function sampleN(
  policy: HfPolicy,
  prompt: number[],
  req: Pick<CompletionRequest, 'n' | 'temperature' | 'top_p' | 'top_k' | 'seed' | 'stop'>,
  maxNewTokens: number,
  topLogprobs: number,
  signal: AbortSignal | undefined,
  onText?: (row: number, delta: string) => void,
): Promise<Sampled[]> {
  const stops = stopList(req.stop).filter((s) => s !== '');
  const hold = Math.max(0, ...stops.map((s) => s.length - 1));
  const tokens: number[][] = Array.from({ length: req.n }, () => []);
  const sent = new Array<number>(req.n).fill(0);
  const emit = (row: number, text: string, final: boolean) => {
    // a token that ends mid-character decodes to U+FFFD: wait for the rest; keep back what could start a stop string
    const upTo = final ? text.length : text.endsWith('\uFFFD') ? -1 : Math.max(0, text.length - hold);
    if (upTo > sent[row]!) {
      onText!(row, text.slice(sent[row], upTo));
      sent[row] = upTo;
    }
  };
  const watch = stops.length > 0 || onText !== undefined || signal !== undefined;
  const out = await policy.sample(
    Array.from({ length: req.n }, () => prompt),
    {
      maxNewTokens,
      temperature: req.temperature,
      topP: req.top_p,
      topK: Math.max(0, req.top_k),
      seed: req.seed ?? Math.floor(Math.random() * 2 ** 31),
      topLogprobs,
    },
    watch
      ? (row, id) => {
          if (signal?.aborted) return true;
          tokens[row]!.push(id);
          if (!stops.length && !onText) return false;
          const { text, stopped } = cutAtStop(policy.tokenizer.decode(tokens[row]!), stops);
          if (onText) emit(row, text, stopped);
          return stopped;
        }
      : undefined,
  );
  if (signal?.aborted) throw new DomainError('BAD_REQUEST', 'the client closed the request');
  return out.map((completion, row) => {
    const { text, stopped } = cutAtStop(completion.text, stops);
    if (onText) emit(row, text, true);
    return { completion, text, finish: stopped || completion.finishReason !== 'length' ? 'stop' : 'length' };
  });
}

/** OpenAI's `usage`: the prompt once, every choice's tokens. */
function usageOf(prompt: number[], sampled: Sampled[]) {
  const completion = sampled.reduce((n, s) => n + s.completion.tokens.length, 0);
  return { prompt_tokens: prompt.length, completion_tokens: completion, total_tokens: prompt.length + completion };
}

/** A conversation as the chat template takes it: tool-call arguments as objects (templates write them with tojson). */
function templateMessages(messages: ChatMessageInput[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role === 'assistant') {
      const calls = m.tool_calls?.map((c) => {
        let args: unknown = c.function.arguments;
        try {
          args = JSON.parse(c.function.arguments);
        } catch {
          // left as the string the client sent
        }
        return { ...(c.id ? { id: c.id } : {}), type: 'function', function: { name: c.function.name, arguments: args } };
      });
      return { role: 'assistant', content: contentText(m.content), ...(calls?.length ? { tool_calls: calls } : {}) };
    }
    if (m.role === 'tool')
      return {
        role: 'tool',
        content: contentText(m.content),
        ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
        ...(m.name ? { name: m.name } : {}),
      };
    return { role: m.role === 'developer' ? 'system' : m.role, content: contentText(m.content) };
  });
}

function tokenText(policy: HfPolicy, id: number, asIds: boolean) {
  const token = asIds ? `token_id:${id}` : policy.tokenizer.decode([id], { skipSpecial: false });
  return { token, bytes: [...Buffer.from(token, 'utf8')] };
}

function chatLogprobs(policy: HfPolicy, c: HfCompletion, asIds: boolean) {
  return {
    content: c.tokens.map((id, i) => ({
      ...tokenText(policy, id, asIds),
      logprob: c.logprobs[i]!,
      top_logprobs: (c.top?.[i] ?? []).map((t) => ({ ...tokenText(policy, t.id, asIds), logprob: t.logprob })),
    })),
    refusal: null,
  };
}

/** POST /v1/chat/completions: one response, or (with `sink`) its chunks as they are made and then the last. */
export async function chatCompletion(db: Db, req: ChatCompletionRequest, sink?: StreamSink, signal?: AbortSignal): Promise<Record<string, unknown>> {
  return withLoadedModel(db, req.model, async (policy) => {
    const id = `chatcmpl-${randomUUID()}`;
    const created = now();
    const tools = req.tool_choice === 'none' ? undefined : req.tools;
    let rendered: string;
    try {
      rendered = policy.tokenizer.renderChat(templateMessages(req.messages), { addGenerationPrompt: true, extra: tools?.length ? { tools } : {} });
    } catch (e) {
      throw new DomainError('BAD_REQUEST', `model "${req.model}" cannot render this conversation with its chat template: ${(e as Error).message}`);
    }
    const prompt = policy.tokenizer.encode(rendered, { specialTokens: false });
    const maxNew = budget(policy, prompt, req);
    const format = toolCallFormatFor({ chatTemplate: policy.tokenizer.chatTemplate });
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      sink!({ id, object: 'chat.completion.chunk', created, model: req.model, choices, ...extra });
    // with tools, a message is only known to be a tool call once it is complete: streamed whole at the end
    const streamText = sink && !tools?.length;
    if (sink) for (let i = 0; i < req.n; i++) chunk([{ index: i, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    const topLogprobs = req.logprobs ? (req.top_logprobs ?? 0) : 0;
    const sampled = await sampleN(
      policy,
      prompt,
      req,
      maxNew,
      topLogprobs,
      signal,
      streamText ? (row, delta) => chunk([{ index: row, delta: { content: delta }, logprobs: null, finish_reason: null }]) : undefined,
    );
    const choices = sampled.map((s, index) => {
      const message = assistantMessage(s.text, tools?.length ? format : undefined);
      const calls = message.tool_calls ?? [];
      return {
        index,
        message,
        logprobs: req.logprobs ? chatLogprobs(policy, s.completion, req.return_tokens_as_token_ids) : null,
        finish_reason: calls.length ? 'tool_calls' : s.finish,
        ...(req.return_token_ids ? { token_ids: s.completion.tokens } : {}),
      };
    });
    const fullUsage = usageOf(prompt, sampled);
    if (sink) {
      for (const c of choices) {
        const calls = 'tool_calls' in c.message ? c.message.tool_calls : undefined;
        const delta = streamText ? {} : { content: c.message.content, ...(calls ? { tool_calls: calls.map((t, i) => ({ index: i, ...t })) } : {}) };
        chunk([{ index: c.index, delta, logprobs: c.logprobs, finish_reason: c.finish_reason }]);
      }
      if (req.stream_options?.include_usage) chunk([], { usage: fullUsage });
    }
    return {
      id,
      object: 'chat.completion',
      created,
      model: req.model,
      choices,
      usage: fullUsage,
      ...(req.return_token_ids ? { prompt_token_ids: prompt } : {}),
    };
  });
}

/** POST /v1/completions: the prompt as text (encoded as the model's tokenizer does, BOS included) or token ids. */
export async function textCompletion(db: Db, req: CompletionRequest, sink?: StreamSink, signal?: AbortSignal): Promise<Record<string, unknown>> {
  return withLoadedModel(db, req.model, async (policy) => {
    const id = `cmpl-${randomUUID()}`;
    const created = now();
    const prompt = typeof req.prompt === 'string' ? policy.tokenizer.encode(req.prompt) : req.prompt;
    const vocab = policy.config.vocabSize;
    const bad = prompt.find((t) => t >= vocab);
    if (bad !== undefined) throw new DomainError('BAD_REQUEST', `prompt: token id ${bad} is outside the model's vocabulary (0..${vocab - 1})`);
    const maxNew = budget(policy, prompt, { n: req.n, max_tokens: req.max_tokens ?? 16 });
    const promptText = typeof req.prompt === 'string' ? req.prompt : policy.tokenizer.decode(prompt);
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      sink!({ id, object: 'text_completion', created, model: req.model, choices, ...extra });
    const sampled = await sampleN(
      policy,
      prompt,
      req,
      maxNew,
      req.logprobs ?? 0,
      signal,
      sink ? (row, delta) => chunk([{ index: row, text: delta, logprobs: null, finish_reason: null }]) : undefined,
    );
    const choices = sampled.map((s, index) => {
      const c = s.completion;
      const tokens = c.tokens.map((t) => tokenText(policy, t, req.return_tokens_as_token_ids).token);
      let offset = promptText.length;
      const logprobs =
        req.logprobs == null
          ? null
          : {
              tokens,
              token_logprobs: c.logprobs,
              top_logprobs: (c.top ?? c.tokens.map(() => [])).map((top) =>
                Object.fromEntries(top.map((t) => [tokenText(policy, t.id, req.return_tokens_as_token_ids).token, t.logprob])),
              ),
              text_offset: tokens.map((t) => ((offset += t.length), offset - t.length)),
            };
      return {
        index,
        text: req.echo ? promptText + s.text : s.text,
        logprobs,
        finish_reason: s.finish,
        ...(req.return_token_ids ? { token_ids: c.tokens } : {}),
      };
    });
    const fullUsage = usageOf(prompt, sampled);
    if (sink) {
      for (const c of choices) chunk([{ index: c.index, text: '', logprobs: c.logprobs, finish_reason: c.finish_reason }]);
      if (req.stream_options?.include_usage) chunk([], { usage: fullUsage });
    }
    return {
      id,
      object: 'text_completion',
      created,
      model: req.model,
      choices,
      usage: fullUsage,
      ...(req.return_token_ids ? { prompt_token_ids: prompt } : {}),
    };
  });
}
