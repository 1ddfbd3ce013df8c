import { Template } from '@huggingface/jinja';
import { renderBounded } from '@/lib/policy/hf/bounded-template';
import type { ToolSchema } from '../tools/tool-definitions';
import type { AgentChatMessage, ChatRenderer, RenderedConversation } from './chat-renderer';
import { appendTokens, emptySequence, type TokenSequence } from './token-sequence';

/** What the renderer needs of a Hugging Face tokenizer (lib/policy/hf/tokenizer.ts's HfTokenizer has it). */
export type TemplateTokenizer = {
  encode(text: string, o?: { specialTokens?: boolean }): number[];
  decode(ids: number[], o?: { skipSpecial?: boolean }): string;
  readonly eos: number | undefined;
  readonly bos: number | undefined;
};

export class TemplateNotPrefixStableError extends Error {}

/**
 * A model's own chat template (Jinja, as in tokenizer_config.json) applied incrementally:
 * each step renders the template over the messages so far and appends only the text past
 * what is already in the sequence, tokenized on its own. That is right only if the template
 * is prefix-stable (rendering n+1 messages starts with the rendering of n), which is
 * checked at every step: a template that rewrites earlier text (e.g. drops old reasoning,
 * or renders the last message differently) fails loudly instead of training on tokens the
 * policy never saw. The assistant's tokens are the sampled ones; its message content is
 * their decoded text, passed to the template as plain content (tool calls stay in the text,
 * as sampled, so the template cannot reformat them).
 */
export class ChatTemplateRenderer implements ChatRenderer {
  readonly name: string;
  readonly stopTokens: number[];
  private readonly source: string;
  private readonly endText: string;
  private readonly templateHasTools: boolean;

  constructor(
    readonly tokenizer: TemplateTokenizer,
    o: { chatTemplate: string; name?: string; endToken?: number; extra?: Record<string, unknown> },
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
  }
  private readonly extra: Record<string, unknown>;

  /**
   * The template applied to `messages`, as transformers' apply_chat_template(tokenize=False)
   * does, within the template limits on the render thread (TemplateLimitError past them, and
   * TemplateRenderError for the template's own errors: the model's configuration, not the episode's).
   */
  render(messages: AgentChatMessage[], tools: ToolSchema[], addGenerationPrompt: boolean): string {
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

  /**
   * The whole conversation in one pass, for checks: the template over every message once,
   * with each assistant message's sampled tokens spliced in where its text is and the text
   * between them tokenized piece by piece. Equal to the incremental sequence exactly when
   * the template is prefix-stable and the episode appended what the template renders.
   */
  renderWhole(o: { system: string; user: string; tools: ToolSchema[] }, rest: AgentChatMessage[], assistantTokens: number[][]): number[] {
    const messages: AgentChatMessage[] = [{ role: 'system', content: this.systemContent(o.system, o.tools) }, { role: 'user', content: o.user }, ...rest];
    const full = this.render(messages, o.tools, rest.at(-1)?.role !== 'assistant');
    const ids: number[] = [];
    let at = 0;
    let a = 0;
    for (const m of rest) {
      if (m.role !== 'assistant') continue;
      const tokens = assistantTokens[a++]!;
      const said = this.tokenizer.decode(tokens, { skipSpecial: false });
      const found = full.indexOf(said, at);
      if (found < 0) throw new Error(`assistant message ${a} is not in the rendered conversation`);
      ids.push(...this.tokenizer.encode(full.slice(at, found), { specialTokens: false }), ...tokens);
      at = found + said.length;
    }
    // after a final assistant message the template's closing text is not part of the episode: the policy stopped at its end token
    if (rest.at(-1)?.role !== 'assistant' && at < full.length) ids.push(...this.tokenizer.encode(full.slice(at), { specialTokens: false }));
    return ids;
  }
}

class TemplateConversation implements RenderedConversation {
  readonly sequence: TokenSequence = emptySequence();
  readonly messages: AgentChatMessage[] = [];
  /** the template's rendering of `messages` (with the generation prompt when the policy is next) */
  private text = '';
  /** how much of `text` the sequence holds; the rest is appended with the next environment tokens */
  private covered = 0;

  constructor(
    readonly renderer: ChatTemplateRenderer,
    private readonly o: { system: string; user: string; tools: ToolSchema[] },
  ) {
    this.messages.push({ role: 'system', content: renderer.systemContent(o.system, o.tools) }, { role: 'user', content: o.user });
    this.text = renderer.render(this.messages, o.tools, true);
    appendTokens(this.sequence, 'prompt', renderer.tokenizer.encode(this.text, { specialTokens: false }));
    this.covered = this.text.length;
  }

  private next(addGenerationPrompt: boolean, what: string): string {
    const text = this.renderer.render(this.messages, this.o.tools, addGenerationPrompt);
    if (!text.startsWith(this.text)) {
      let i = 0;
      while (i < text.length && text[i] === this.text[i]) i++;
      throw new TemplateNotPrefixStableError(
        `${this.renderer.name}: the chat template is not prefix-stable: adding ${what} (message ${this.messages.length}) changed earlier text at character ${i} ` +
          `(${JSON.stringify(this.text.slice(i, i + 40))} became ${JSON.stringify(text.slice(i, i + 40))}); ` +
          'an episode cannot be rendered as one token sequence with it. Use a template that renders each message independently of later ones.',
      );
    }
    return text;
  }

  appendAssistant(tokens: number[], logprobs?: number[]): void {
    const content = this.renderer.assistantText(tokens);
    this.messages.push({ role: 'assistant', content });
    const text = this.next(false, 'an assistant message');
    const rendered = text.slice(this.covered);
    const ended = tokens.at(-1) === this.renderer.stopTokens[0];
    const said = this.renderer.tokenizer.decode(tokens, { skipSpecial: false });
    // the sampled tokens must be exactly the start of how the template renders this message;
    // a message cut at the token limit has no end token, which then comes as environment text
    const ok = rendered.startsWith(said) || (!ended && rendered.startsWith(content));
    if (!ok)
      throw new TemplateNotPrefixStableError(
        `${this.renderer.name}: the chat template renders the assistant message as ${JSON.stringify(rendered.slice(0, 80))}, not as sampled (${JSON.stringify(said.slice(0, 80))}); ` +
          'it must render assistant content verbatim',
      );
    appendTokens(this.sequence, 'assistant', tokens, logprobs);
    this.text = text;
    this.covered += rendered.startsWith(said) ? said.length : content.length;
  }

  appendTools(results: { name: string; content: string }[]): void {
    for (const r of results) this.messages.push({ role: 'tool', name: r.name, content: r.content });
    const text = this.next(true, `${results.length} tool message(s)`);
    appendTokens(this.sequence, 'environment', this.renderer.tokenizer.encode(text.slice(this.covered), { specialTokens: false }));
    this.text = text;
    this.covered = text.length;
  }
}
