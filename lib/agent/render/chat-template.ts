import { Template } from '@huggingface/jinja';
import type { ToolCallFormatName } from '@/core/tool-call-formats';
import { renderBounded, TemplateRenderError } from '@/lib/policy/hf/bounded-template';
import type { ToolCallFormat } from '../tools/call-formats/call-format';
import { mistralCallId } from '../tools/call-formats/mistral';
import { toolCallFormatFor } from '../tools/call-formats/registry';
import type { ToolSchema } from '../tools/tool-definitions';
import type { AgentChatMessage, ChatRenderer, RenderedConversation, ToolResultMessage } from './chat-renderer';
import { encodeRendered, type TemplateTokenizer } from './rendered-text';
import { appendTokens, emptySequence, type TokenSequence } from './token-sequence';

export type { TemplateTokenizer } from './rendered-text';

/** The chat template cannot render an agent episode as one token sequence (see the message). */
export class TemplateNotPrefixStableError extends Error {}

/** Stands for the assistant message before new tool messages; never part of an episode's tokens. */
const PROBE = 'crucible_probe';

/**
 * A model's own chat template (Jinja, as in tokenizer_config.json) driving an agent episode
 * as one token sequence, the way verl, SkyRL and prime-rl do it: **history is never
 * rendered again.** The first prompt is the template over system + user. An assistant
 * message is the sampled tokens, kept as they are. New tool messages are the template's
 * text after an assistant message: rendered after a stand-in assistant message ending with
 * the end token, and everything past that end taken, generation prompt included. So a
 * template that renders the last assistant message differently from earlier ones (Qwen3
 * adds `<think>\n\n</think>\n\n` to the last and drops empty ones from history) or moves the
 * system message (Mistral) still gives one consistent sequence.
 *
 * Only the template's own text makes control tokens: a message that carries a special token's
 * text (`</s>` in a file, `<|im_end|>` in a task statement) is encoded as plain text
 * (rendered-text.ts).
 */
export class ChatTemplateRenderer implements ChatRenderer {
  readonly name: string;
  readonly stopTokens: number[];
  readonly toolCallFormat: ToolCallFormat;
  private readonly source: string;
  private readonly endText: string;
  private readonly templateHasTools: boolean;
  private readonly extra: Record<string, unknown>;

  constructor(
    readonly tokenizer: TemplateTokenizer,
    o: {
      chatTemplate: string;
      name?: string;
      endToken?: number;
      /** variables the template reads beyond messages and tools (Qwen3's `enable_thinking`) */
      extra?: Record<string, unknown>;
      /** default: what the template renders (core/tool-call-formats.ts detectToolCallFormat) */
      toolCallFormat?: ToolCallFormatName;
    },
  ) {
    const end = o.endToken ?? tokenizer.eos;
    if (end === undefined) throw new Error("the chat template renderer needs the token that ends an assistant message (endToken or the tokenizer's EOS)");
    this.stopTokens = [end];
    this.endText = tokenizer.decode([end], { skipSpecial: false });
    new Template(o.chatTemplate); // parsed here so a syntax error surfaces at construction; rendered on the render thread
    this.source = o.chatTemplate;
    this.templateHasTools = /\btools\b/.test(o.chatTemplate);
    this.name = o.name ?? 'chat-template';
    this.extra = o.extra ?? {};
    this.toolCallFormat = toolCallFormatFor({ format: o.toolCallFormat, chatTemplate: o.chatTemplate });
  }

  /**
   * The template applied to `messages`, as transformers' apply_chat_template(tokenize=False)
   * does, within the template limits on the render thread (TemplateLimitError past them, and
   * TemplateRenderError for the template's own errors: the model's configuration, not the episode's).
   */
  render(messages: readonly object[], tools: ToolSchema[], addGenerationPrompt: boolean): string {
    const special = (id: number | undefined) => (id === undefined ? '' : this.tokenizer.decode([id], { skipSpecial: false }));
    return renderBounded(this.source, {
      ...this.extra,
      messages,
      ...(tools.length && this.templateHasTools ? { tools } : {}),
      add_generation_prompt: addGenerationPrompt,
      bos_token: special(this.tokenizer.bos),
      eos_token: special(this.tokenizer.eos),
    });
  }

  /** A template that does not render `tools` still gets the schemas, in the system message. */
  systemContent(system: string, tools: ToolSchema[]): string {
    if (!tools.length || this.templateHasTools) return system;
    return `${system}\n\n# Tools\n${tools.map((t) => JSON.stringify(t)).join('\n')}`;
  }

  begin(o: { system: string; user: string; tools: ToolSchema[] }): RenderedConversation {
    return new TemplateConversation(this, o);
  }

  assistantTokens(text: string): number[] {
    return [...this.tokenizer.encode(text, { specialTokens: false }), this.stopTokens[0]!];
  }

  assistantText(tokens: number[]): string {
    const body = tokens.at(-1) === this.stopTokens[0] ? tokens.slice(0, -1) : tokens;
    return this.tokenizer.decode(body, { skipSpecial: false });
  }

  /** The tool messages with an id each (the call's own, else one made up), as templates want them. */
  toolMessages(results: ToolResultMessage[]): AgentChatMessage[] {
    return results.map((r, i) => ({ role: 'tool', name: r.name, content: r.content, tool_call_id: r.id ?? mistralCallId(i) }));
  }

  /**
   * The text that follows an assistant message when `results` answer it: the template over
   * [system, user, stand-in assistant, …tool messages] with the generation prompt, from just
   * past the stand-in's end token. The stand-in first carries a structured tool call (templates
   * render tool messages after one; Mistral's insists), then, for templates that refuse that,
   * plain content.
   */
  toolTurnText(results: ToolResultMessage[], tools: ToolSchema[]): string {
    const attempts: object[] = [
      { role: 'assistant', content: PROBE, tool_calls: [{ id: mistralCallId(0), type: 'function', function: { name: PROBE, arguments: {} } }] },
      { role: 'assistant', content: PROBE },
    ];
    let failure: Error | undefined;
    let unmarked = false;
    for (const assistant of attempts) {
      let text: string;
      try {
        text = this.render([{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }, assistant, ...this.toolMessages(results)], tools, true);
      } catch (e) {
        if (!(e instanceof TemplateRenderError)) throw e;
        failure = e;
        continue;
      }
      const mark = text.indexOf(PROBE);
      if (mark < 0) unmarked = true;
      const end = mark < 0 ? -1 : text.indexOf(this.endText, mark);
      if (end >= 0) return text.slice(end + this.endText.length);
    }
    if (failure) throw failure;
    if (unmarked)
      throw new TemplateNotPrefixStableError(
        `${this.name}: the chat template does not render an assistant message (neither its content nor a structured tool call) once other messages follow it, ` +
          'so an episode cannot be one token sequence with it; use a template that renders each message as it was said',
      );
    throw new TemplateNotPrefixStableError(
      `${this.name}: the chat template does not end an assistant message with ${JSON.stringify(this.endText)} (the end token), ` +
        "so the text after one cannot be found; set the model's end token (eos_token in tokenizer_config.json) to the one its template ends assistant messages with",
    );
  }

  /**
   * The whole conversation in one pass, for checks: the template over every message once,
   * with each assistant message's sampled tokens spliced in where its text is and the text
   * between them encoded piece by piece. Equal to the incremental sequence where the template
   * renders history as it rendered each turn (not Qwen3's, which rewrites past think blocks).
   */
  renderWhole(o: { system: string; user: string; tools: ToolSchema[] }, rest: AgentChatMessage[], assistantTokens: number[][]): number[] {
    const messages: AgentChatMessage[] = [{ role: 'system', content: this.systemContent(o.system, o.tools) }, { role: 'user', content: o.user }, ...rest];
    const full = this.render(messages, o.tools, rest.at(-1)?.role !== 'assistant');
    const ids: number[] = [];
    let at = 0;
    let a = 0;
    let pending: string[] = [messages[0]!.content, o.user];
    for (const m of rest) {
      if (m.role !== 'assistant') {
        pending.push(m.content);
        continue;
      }
      const tokens = assistantTokens[a++]!;
      const said = this.tokenizer.decode(tokens, { skipSpecial: false });
      const found = full.indexOf(said, at);
      if (found < 0) throw new Error(`assistant message ${a} is not in the rendered conversation`);
      ids.push(...encodeRendered(this.tokenizer, full.slice(at, found), pending, this.name), ...tokens);
      at = found + said.length;
      pending = [];
    }
    // after a final assistant message the template's closing text is not part of the episode: the policy stopped at its end token
    if (rest.at(-1)?.role !== 'assistant' && at < full.length) ids.push(...encodeRendered(this.tokenizer, full.slice(at), pending, this.name));
    return ids;
  }
}

class TemplateConversation implements RenderedConversation {
  readonly sequence: TokenSequence = emptySequence();
  readonly messages: AgentChatMessage[] = [];
  /** whether the last assistant message ended with the end token (one cut at the token limit did not) */
  private lastEnded = true;

  constructor(
    readonly renderer: ChatTemplateRenderer,
    private readonly o: { system: string; user: string; tools: ToolSchema[] },
  ) {
    const system = renderer.systemContent(o.system, o.tools);
    this.messages.push({ role: 'system', content: system }, { role: 'user', content: o.user });
    const text = renderer.render(this.messages, o.tools, true);
    appendTokens(this.sequence, 'prompt', encodeRendered(renderer.tokenizer, text, [system, o.user], renderer.name));
  }

  appendAssistant(tokens: number[], logprobs?: number[]): void {
    this.messages.push({ role: 'assistant', content: this.renderer.assistantText(tokens) });
    appendTokens(this.sequence, 'assistant', tokens, logprobs);
    this.lastEnded = tokens.at(-1) === this.renderer.stopTokens[0];
  }

  appendTools(results: ToolResultMessage[]): void {
    const text = this.renderer.toolTurnText(results, this.o.tools);
    this.messages.push(...this.renderer.toolMessages(results));
    const ids = encodeRendered(
      this.renderer.tokenizer,
      text,
      results.map((r) => r.content),
      this.renderer.name,
    );
    // a message cut at the token limit is closed by the environment, as the template would have closed it
    appendTokens(this.sequence, 'environment', this.lastEnded ? ids : [this.renderer.stopTokens[0]!, ...ids]);
  }
}
