import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { z } from 'zod';
import { MODEL_METADATA_MAX_BYTES } from '@/core/models';
import { renderBounded, type TemplateLimits } from './bounded-template';
import { readModelText } from './model-file';

// A model's own tokenizer (tokenizer.json through @huggingface/tokenizers) and chat template
// (tokenizer_config.json's chat_template, or chat_template.jinja, through @huggingface/jinja).

/** A special token in tokenizer_config.json: a string or an AddedToken object. */
const SpecialToken = z.union([z.string(), z.object({ content: z.string() }).loose()]).nullish();
const TemplateField = z.union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }))]).nullish();

const TokenizerConfig = z
  .object({
    bos_token: SpecialToken,
    eos_token: SpecialToken,
    unk_token: SpecialToken,
    pad_token: SpecialToken,
    chat_template: TemplateField,
  })
  .loose();

export type ChatMessage = { role: string; content: string } & Record<string, unknown>;

const content = (t: z.infer<typeof SpecialToken>) => (t == null ? undefined : typeof t === 'string' ? t : t.content);

/** A metadata file's JSON, read as model-file.ts reads (no links out of the directory, no FIFOs, size-capped). */
async function readJson(dir: string, name: keyof typeof MODEL_METADATA_MAX_BYTES, required: boolean): Promise<unknown> {
  const file = path.join(dir, name);
  const text = await readModelText(dir, name, MODEL_METADATA_MAX_BYTES[name]);
  if (text === undefined) {
    if (!required) return undefined;
    throw new Error(`${file}: cannot read (ENOENT)`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: invalid JSON (${(e as Error).message})`);
  }
}

export type TokenizerConfig = z.infer<typeof TokenizerConfig>;

/** tokenizer_config.json checked (special tokens, chat_template); an error names the field. */
export function parseTokenizerConfig(json: unknown, file: string): TokenizerConfig {
  const parsed = TokenizerConfig.safeParse(json);
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues[0]?.path.join('.')} is invalid (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/** The chat template a model uses: tokenizer_config.json's (a string, or the one named "default"), else chat_template.jinja. */
export async function chatTemplateSource(dir: string, tc: TokenizerConfig): Promise<string | undefined> {
  const inConfig = typeof tc.chat_template === 'string' ? tc.chat_template : tc.chat_template?.find((t) => t.name === 'default')?.template;
  return inConfig ?? (await readModelText(dir, 'chat_template.jinja', MODEL_METADATA_MAX_BYTES['chat_template.jinja']));
}

export class HfTokenizer {
  private literalTok: Tokenizer | undefined;

  private constructor(
    private readonly tok: Tokenizer,
    /** tokenizer.json as loaded: the literal tokenizer is built from it on first use */
    private readonly json: { added_tokens?: { content: string; special?: boolean }[] },
    private readonly config: TokenizerConfig,
    /** The chat template source, when the model has one. */
    readonly chatTemplate: string | undefined,
    private readonly template: Template | undefined,
  ) {}

  static async load(dir: string): Promise<HfTokenizer> {
    const tjFile = path.join(dir, 'tokenizer.json');
    const tcFile = path.join(dir, 'tokenizer_config.json');
    const tj = await readJson(dir, 'tokenizer.json', true);
    const tc = parseTokenizerConfig((await readJson(dir, 'tokenizer_config.json', false)) ?? {}, tcFile);
    let tok: Tokenizer;
    try {
      tok = new Tokenizer(tj as object, tc);
    } catch (e) {
      throw new Error(`${tjFile}: cannot build the tokenizer (${(e as Error).message})`);
    }
    const source = await chatTemplateSource(dir, tc);
    const jinjaFile = path.join(dir, 'chat_template.jinja');
    let template: Template | undefined;
    if (source !== undefined) {
      try {
        template = new Template(source);
      } catch (e) {
        throw new Error(`${tc.chat_template ? tcFile : jinjaFile}: chat_template does not parse (${(e as Error).message})`);
      }
    }
    return new HfTokenizer(tok, tj as { added_tokens?: { content: string; special?: boolean }[] }, tc, source, template);
  }

  get vocabSize(): number {
    return this.tok.get_vocab(true).size;
  }

  private id(token: string | undefined): number | undefined {
    return token === undefined ? undefined : this.tok.token_to_id(token);
  }

  get bos(): number | undefined {
    return this.id(content(this.config.bos_token));
  }
  get eos(): number | undefined {
    return this.id(content(this.config.eos_token));
  }
  get pad(): number | undefined {
    return this.id(content(this.config.pad_token));
  }

  /** Encode text; `specialTokens` adds what the tokenizer's post-processor adds (e.g. BOS), as transformers does by default. */
  encode(text: string, o: { specialTokens?: boolean } = {}): number[] {
    return this.tok.encode(text, { add_special_tokens: o.specialTokens ?? true }).ids;
  }

  /** The texts of the special tokens (tokenizer.json's added tokens marked special: `<|im_end|>`, `</s>`, …). */
  get specialTexts(): string[] {
    return (this.json.added_tokens ?? []).filter((t) => t.special).map((t) => t.content);
  }

  /**
   * `text` as plain text: a special token's text in it (`</s>`, `<|im_end|>`) becomes ordinary
   * tokens, never the control token, as transformers' `split_special_tokens=True`. For text from
   * outside (tool output, task statements), so it cannot end a turn or forge a role. Done with a
   * second tokenizer built without the special added tokens; added tokens that are not special
   * (Qwen's `<think>`) still match, as they do in transformers.
   */
  encodeLiteral(text: string): number[] {
    this.literalTok ??= new Tokenizer({ ...this.json, added_tokens: (this.json.added_tokens ?? []).filter((t) => !t.special) } as object, this.config);
    return this.literalTok.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: number[], o: { skipSpecial?: boolean } = {}): string {
    if (!ids.length) return '';
    return this.tok.decode(ids, { skip_special_tokens: o.skipSpecial ?? true });
  }

  /**
   * Render a conversation with the model's chat template (transformers' apply_chat_template,
   * tokenize=False), within `limits` (bounded-template.ts): a template that loops too long or
   * builds too much text throws TemplateLimitError instead of hanging its process.
   */
  renderChat(messages: ChatMessage[], o: { addGenerationPrompt?: boolean; extra?: Record<string, unknown>; limits?: TemplateLimits } = {}): string {
    if (!this.template || this.chatTemplate === undefined)
      throw new Error('this model has no chat template (no chat_template in tokenizer_config.json and no chat_template.jinja)');
    return renderBounded(
      this.chatTemplate,
      {
        ...o.extra,
        messages,
        add_generation_prompt: o.addGenerationPrompt ?? true,
        bos_token: content(this.config.bos_token) ?? '',
        eos_token: content(this.config.eos_token) ?? '',
        unk_token: content(this.config.unk_token) ?? '',
        pad_token: content(this.config.pad_token) ?? '',
      },
      o.limits,
    );
  }

  /** Render and encode a conversation; the template writes the special tokens itself, so none are added. */
  encodeChat(messages: ChatMessage[], o: { addGenerationPrompt?: boolean } = {}): number[] {
    return this.encode(this.renderChat(messages, o), { specialTokens: false });
  }
}
