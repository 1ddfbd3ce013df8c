import { TemplateRenderError } from '@/lib/policy/hf/bounded-template';

/** What rendering needs of a Hugging Face tokenizer (lib/policy/hf/tokenizer.ts's HfTokenizer has it). */
export type TemplateTokenizer = {
  encode(text: string, o?: { specialTokens?: boolean }): number[];
  /** `text` with special tokens' texts encoded as plain text (split_special_tokens) */
  encodeLiteral(text: string): number[];
  /** the texts of the special tokens */
  readonly specialTexts: readonly string[];
  decode(ids: number[], o?: { skipSpecial?: boolean }): string;
  readonly eos: number | undefined;
  readonly bos: number | undefined;
};

/**
 * Text a chat template rendered, encoded so that only the template's own text makes control
 * tokens. `contents` are the messages the template placed in it (in order): those that
 * carry a special token's text are found in the rendering (as given, trimmed, or as a JSON
 * string) and encoded as plain text; the rest of the rendering is
 * encoded as usual. A content the template changed beyond trimming cannot be told apart from
 * the template's text: refused (TemplateRenderError) rather than letting it make a control token.
 */
export function encodeRendered(tok: TemplateTokenizer, text: string, contents: readonly string[], what: string): number[] {
  const specials = tok.specialTexts.filter((s) => s.length > 0);
  const risky = contents.filter((c) => specials.some((s) => c.includes(s)));
  if (!risky.length) return tok.encode(text, { specialTokens: false });
  const ids: number[] = [];
  let at = 0;
  for (const content of risky) {
    // as given; trimmed (Llama's templates trim messages); as a JSON string (Llama 3's renders tool output with tojson)
    let found = -1;
    let length = 0;
    for (const form of [content, content.trim(), JSON.stringify(content)]) {
      found = text.indexOf(form, at);
      length = form.length;
      if (found >= 0) break;
    }
    if (found < 0)
      throw new TemplateRenderError(
        `${what}: a message contains the text of a special token (${specials.filter((s) => content.includes(s)).join(', ')}) and the chat template changed it, ` +
          'so it cannot be kept apart from the control tokens the template writes; the template must place message content unchanged',
      );
    ids.push(...tok.encode(text.slice(at, found), { specialTokens: false }), ...tok.encodeLiteral(text.slice(found, found + length)));
    at = found + length;
  }
  ids.push(...tok.encode(text.slice(at), { specialTokens: false }));
  return ids;
}
