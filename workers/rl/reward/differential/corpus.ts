import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The module styles a JavaScript io solution is written in (see corpus/README.md). */
export const JS_STYLES = ['plain', 'cjs-object', 'cjs-function', 'cjs-exports', 'cjs-require', 'esm-named', 'esm-default', 'esm-const', 'esm-import'] as const;
export type JsStyle = (typeof JS_STYLES)[number];

const ioCase = z.object({ input: z.array(z.unknown()), expected: z.unknown() }).strict();
const name = z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
const common = {
  id: z.string().min(1),
  features: z.array(z.string()),
  prompt: z.string(),
  solution: z.string().min(1),
  intended: z.enum(['pass', 'fail']),
  note: z.string(),
};

const humanEval = z.object({ ...common, language: z.literal('python'), format: z.literal('humaneval'), test: z.string().min(1), entry_point: name }).strict();
const ioPython = z.object({ ...common, language: z.literal('python'), format: z.literal('io'), entryPoint: name, tests: z.array(ioCase).min(1) }).strict();
const ioJavaScript = z
  .object({
    ...common,
    language: z.literal('javascript'),
    format: z.literal('io'),
    style: z.enum(JS_STYLES),
    async: z.boolean(),
    entryPoint: name,
    tests: z.array(ioCase).min(1),
  })
  .strict();

export const corpusEntry = z.union([humanEval, ioPython, ioJavaScript]);
export type CorpusEntry = z.infer<typeof corpusEntry>;
export type HumanEvalEntry = z.infer<typeof humanEval>;
export type IoEntry = z.infer<typeof ioPython> | z.infer<typeof ioJavaScript>;

export const CORPUS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'corpus');

/** Every entry of every corpus/*.jsonl file; a malformed line fails loudly with its place. */
export function loadCorpus(dir = CORPUS_DIR): CorpusEntry[] {
  const entries: CorpusEntry[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    fs.readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!line.trim()) return;
        const parsed = corpusEntry.safeParse(JSON.parse(line));
        if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.message}`);
        const e = parsed.data;
        // HumanEval candidates are prompt + completion, as the policy's whole-file source is.
        if (e.format === 'humaneval' && !e.solution.startsWith(e.prompt)) throw new Error(`${file}:${i + 1}: ${e.id}: solution does not start with the prompt`);
        entries.push(e);
      });
  }
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.id)) throw new Error(`duplicate corpus id ${e.id}`);
    seen.add(e.id);
  }
  return entries;
}
