import { Tokenizer } from '@/lib/policy/tokenizer';
import { hermesFormat } from '../tools/call-formats/hermes';
import type { ToolSchema } from '../tools/tool-definitions';
import type { AgentChatMessage, ChatRenderer, RenderedConversation, ToolResultMessage } from './chat-renderer';
import { appendTokens, emptySequence, type TokenSequence } from './token-sequence';

/**
 * The fixed template of the built-in byte model (lib/policy/tokenizer.ts: ids are UTF-8
 * bytes, then BOS/EOS/PAD). A message is a header line and its text:
 *
 *   BOS <|system|>\n{system}\n# Tools\n{one JSON schema a line}\n
 *   <|user|>\n{problem}\n
 *   <|assistant|>\n{sampled text} EOS \n
 *   <|tool|> {name}\n{output}\n
 *   <|assistant|>\n …
 *
 * The policy ends its message with EOS; bytes tokenize piece by piece exactly as the whole.
 */
const header = (role: string, name?: string) => `<|${role}|>${name ? ` ${name}` : ''}\n`;
const systemText = (system: string, tools: ToolSchema[]) =>
  `${header('system')}${system}\n# Tools\n${tools.map((t) => JSON.stringify(t)).join('\n')}\n${tools.length ? '\n' : ''}`;
const GEN = header('assistant');

export class ByteTemplateRenderer implements ChatRenderer {
  readonly name = 'byte-template';
  readonly tokenizer = new Tokenizer();
  readonly stopTokens = [this.tokenizer.spec.eos];
  readonly toolCallFormat = hermesFormat;

  begin(o: { system: string; user: string; tools: ToolSchema[] }): RenderedConversation {
    return new ByteConversation(this, o);
  }

  assistantTokens(text: string): number[] {
    return [...this.tokenizer.encode(text), this.tokenizer.spec.eos];
  }

  assistantText(tokens: number[]): string {
    return this.tokenizer.decode(tokens.at(-1) === this.tokenizer.spec.eos ? tokens.slice(0, -1) : tokens);
  }

  /** The whole conversation in one pass, for checks: must equal what the episode built turn by turn. */
  renderWhole(o: { system: string; user: string; tools: ToolSchema[] }, rest: AgentChatMessage[], assistantTokens: number[][]): number[] {
    const ids = [this.tokenizer.spec.bos, ...this.tokenizer.encode(systemText(o.system, o.tools) + header('user') + o.user + '\n' + GEN)];
    let a = 0;
    let text = '';
    let tools = 0;
    const flush = () => {
      if (tools) ids.push(...this.tokenizer.encode(text + GEN));
    };
    for (const m of rest) {
      if (m.role === 'assistant') {
        flush();
        ids.push(...assistantTokens[a++]!);
        text = '\n';
        tools = 0;
      } else if (m.role === 'tool') {
        text += header('tool', m.name) + m.content + '\n';
        tools++;
      }
    }
    flush();
    return ids;
  }
}

class ByteConversation implements RenderedConversation {
  readonly sequence: TokenSequence = emptySequence();
  readonly messages: AgentChatMessage[] = [];

  constructor(
    readonly renderer: ByteTemplateRenderer,
    o: { system: string; user: string; tools: ToolSchema[] },
  ) {
    this.messages.push({ role: 'system', content: o.system }, { role: 'user', content: o.user });
    const tok = renderer.tokenizer;
    appendTokens(this.sequence, 'prompt', [tok.spec.bos, ...tok.encode(systemText(o.system, o.tools) + header('user') + o.user + '\n' + GEN)]);
  }

  appendAssistant(tokens: number[], logprobs?: number[]): void {
    this.messages.push({ role: 'assistant', content: this.renderer.assistantText(tokens) });
    appendTokens(this.sequence, 'assistant', tokens, logprobs);
  }

  appendTools(results: ToolResultMessage[]): void {
    let text = '\n';
    for (const r of results) {
      this.messages.push({ role: 'tool', name: r.name, content: r.content });
      text += header('tool', r.name) + r.content + '\n';
    }
    appendTokens(this.sequence, 'environment', this.renderer.tokenizer.encode(text + GEN));
  }
}
