import type { ToolCallFormatName } from '@/core/tool-call-formats';

/**
 * A tool call read from an assistant message. Nothing in a format throws: a call that cannot
 * be read is an entry with `error`, which the episode answers with an error observation that
 * says what was wrong. `id` is the call's own id where the format carries one (Mistral).
 */
export type ParsedToolCall =
  { ok: true; name: string; arguments: Record<string, unknown>; id?: string } | { ok: false; error: string; raw: string; name?: string };

/** An assistant message: its free text (tool calls removed) and its calls, in order. */
export type ParsedAssistant = { content: string; calls: ParsedToolCall[] };

export type ToolCallToWrite = { name: string; arguments: Record<string, unknown> };

/** One model family's way of writing tool calls in message text. */
export interface ToolCallFormat {
  readonly name: ToolCallFormatName;
  /** how to call a tool, for the system prompt and for "no tool call found" */
  readonly instructions: string;
  parse(text: string): ParsedAssistant;
  /** the text a model of this family writes for `calls` (scripted policies, SFT data, tests) */
  format(calls: ToolCallToWrite[]): string;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const shorten = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** A decoded `{"name", <argsKey>}` object checked: the shape every JSON format shares. */
export function jsonCall(value: unknown, raw: string, argsKeys: readonly string[], example: string): ParsedToolCall {
  if (!isObject(value)) return { ok: false, raw, error: `a tool call must be a JSON object like ${example}` };
  const name = value.name;
  if (typeof name !== 'string' || !name) return { ok: false, raw, error: `the tool call has no "name" (a string naming the tool); write ${example}` };
  const key = argsKeys.find((k) => k in value);
  let args = key === undefined ? {} : value[key];
  // OpenAI's wire format carries arguments as a JSON string; accept it too
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch (e) {
      return { ok: false, raw, name, error: `the arguments of ${name} are a string that is not valid JSON (${(e as Error).message})` };
    }
  }
  if (!isObject(args)) return { ok: false, raw, name, error: `the arguments of ${name} must be a JSON object` };
  const id = typeof value.id === 'string' ? value.id : undefined;
  return { ok: true, name, arguments: args, ...(id ? { id } : {}) };
}

/** JSON.parse that reports instead of throwing. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/**
 * The end of the JSON value that starts at `from` (an object or array), found by matching
 * brackets outside strings; -1 when it is not closed. Lets a parser split `{…}; {…}` or
 * find where `[…]` ends without a streaming JSON parser.
 */
export function jsonValueEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
