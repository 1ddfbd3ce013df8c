import { z } from 'zod';

/**
 * Byte-level tokenizer: ids 0..255 are UTF-8 bytes, then BOS, EOS and PAD. Deterministic
 * and lossless for any text, which is all a small task-trained policy needs; it is saved
 * with every checkpoint so a policy always decodes the way it was trained.
 */
export const TokenizerSpec = z.object({
  kind: z.literal('byte'),
  version: z.literal(1),
  bos: z.number().int(),
  eos: z.number().int(),
  pad: z.number().int(),
  vocabSize: z.number().int(),
});
export type TokenizerSpec = z.infer<typeof TokenizerSpec>;

export const BYTE_TOKENIZER: TokenizerSpec = { kind: 'byte', version: 1, bos: 256, eos: 257, pad: 258, vocabSize: 259 };

export class Tokenizer {
  constructor(readonly spec: TokenizerSpec = BYTE_TOKENIZER) {}

  get vocabSize() {
    return this.spec.vocabSize;
  }

  /** Encode text; with `bos`, the sequence starts with the BOS token. */
  encode(text: string, opts: { bos?: boolean } = {}): number[] {
    const bytes = Array.from(new TextEncoder().encode(text));
    return opts.bos ? [this.spec.bos, ...bytes] : bytes;
  }

  /** Decode ids, skipping special tokens; invalid UTF-8 becomes U+FFFD. */
  decode(ids: number[]): string {
    return new TextDecoder().decode(Uint8Array.from(ids.filter((i) => i >= 0 && i < 256)));
  }

  isSpecial(id: number): boolean {
    return id >= 256;
  }
}
