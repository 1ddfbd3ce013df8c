import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { MODEL_METADATA_MAX_BYTES } from '@/core/models';
import { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './bounded-template';
import { PACKAGE_ANCHOR, TEMPLATE_BUDGET_MODULE } from './hf-files';
import { readModelText } from './model-file';
import { chatTemplateSource, parseTokenizerConfig, type ChatMessage, type TokenizerConfig } from './tokenizer';

/**
 * A model's tokenizer and chat template exercised off the caller's thread (docs/security.md,
 * "Model import"): in a worker thread with a heap limit, ended after a time limit. The web
 * server calls this for the model page's preview and for imports, so a template that loops or
 * a tokenizer.json whose pre-tokenizer regex backtracks exponentially costs one thread its
 * time limit, never the event loop every request waits on (V8 interrupts a running regex when
 * the thread is terminated). The files are read on the caller's side as model-file.ts reads
 * them; the thread gets their text. The thread is plain JS (eval) so it needs no TypeScript
 * loader; it requires the template budget the workers use (template-budget.cjs; hf-files.ts
 * says where it is).
 */

export type TokenizerInspection = {
  vocabSize: number;
  bos: number | null;
  eos: number | null;
  pad: number | null;
  /** the chat template applied to the conversation, or why it could not be; null without a template */
  preview: { text: string; tokens: number } | { error: string } | null;
  /** the chat template's source (tokenizer_config.json's, else chat_template.jinja), null without one */
  chatTemplate: string | null;
};

export type InspectionLimits = { timeoutMs: number; heapMb: number; template: TemplateLimits };

/** Generous for real tokenizers (Gemma 3's 33 MB tokenizer.json builds in ~2 s here) yet bounded. */
export const DEFAULT_INSPECTION_LIMITS: InspectionLimits = { timeoutMs: 30_000, heapMb: 1024, template: { ...DEFAULT_TEMPLATE_LIMITS, ms: 5_000 } };

/** Refused: the tokenizer or template exceeded the time or memory limit (a model configuration problem, not a transient one). */
export class InspectionLimitError extends Error {
  override name = 'InspectionLimitError';
}

/**
 * Texts a pre-tokenizer regex meets in agent episodes, in the shapes that make backtracking
 * patterns explode (long runs of one class, then a character that fails the match).
 */
const PROBES = [
  'a'.repeat(5000) + '!',
  ' '.repeat(5000) + 'x',
  '1'.repeat(5000) + 'a',
  '\n'.repeat(2000) + ' a',
  'ab'.repeat(2500) + '\u00e9',
  '\u4e2d'.repeat(3000) + '!',
];

const WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
const req = require('node:module').createRequire(w.base);
const { Tokenizer } = req('@huggingface/tokenizers');
const jinja = req('@huggingface/jinja');
const render = req(w.budget).installTemplateBudget(jinja);
const content = (t) => (t == null ? undefined : typeof t === 'string' ? t : t.content);
try {
  const tc = w.tokenizerConfig ? JSON.parse(w.tokenizerConfig) : {};
  const tok = new Tokenizer(JSON.parse(w.tokenizerJson), tc);
  const id = (t) => { const c = content(t); const i = c === undefined ? undefined : tok.token_to_id(c); return i === undefined || i === null ? null : i; };
  for (const p of w.probes) tok.encode(p, { add_special_tokens: false });
  let preview = null;
  if (w.template !== null) {
    let t;
    try { t = new jinja.Template(w.template); } catch (e) { e.parse = true; throw e; }
    try {
      const text = render(t, {
        messages: w.messages, add_generation_prompt: true,
        bos_token: content(tc.bos_token) ?? '', eos_token: content(tc.eos_token) ?? '',
        unk_token: content(tc.unk_token) ?? '', pad_token: content(tc.pad_token) ?? '',
      }, w.limits);
      preview = { text, tokens: tok.encode(text, { add_special_tokens: false }).ids.length };
    } catch (e) {
      if (e && e.name === 'TemplateLimitError') throw e;
      preview = { error: String((e && e.message) || e) };
    }
  }
  parentPort.postMessage({ ok: { vocabSize: tok.get_vocab(true).size, bos: id(tc.bos_token), eos: id(tc.eos_token), pad: id(tc.pad_token), preview } });
} catch (e) {
  parentPort.postMessage({ error: String((e && e.message) || e), limit: !!(e && e.name === 'TemplateLimitError'), parse: !!(e && e.parse) });
}
`;

/**
 * The tokenizer of `dir` (tokenizer.json, tokenizer_config.json, the chat template from either
 * it or chat_template.jinja, as HfTokenizer.load picks) built, probed and its template applied
 * to `messages` in an isolated thread. InspectionLimitError when a limit is exceeded; other
 * errors say which file is wrong.
 */
export async function inspectTokenizerIsolated(
  dir: string,
  messages: ChatMessage[],
  limits: InspectionLimits = DEFAULT_INSPECTION_LIMITS,
): Promise<TokenizerInspection> {
  const tokenizerJson = await readModelText(dir, 'tokenizer.json', MODEL_METADATA_MAX_BYTES['tokenizer.json']);
  if (tokenizerJson === undefined) throw new Error(`${path.join(dir, 'tokenizer.json')}: cannot read (ENOENT)`);
  const tcFile = path.join(dir, 'tokenizer_config.json');
  const tokenizerConfig = (await readModelText(dir, 'tokenizer_config.json', MODEL_METADATA_MAX_BYTES['tokenizer_config.json'])) ?? null;
  let tc: TokenizerConfig;
  try {
    tc = parseTokenizerConfig(tokenizerConfig === null ? {} : JSON.parse(tokenizerConfig), tcFile);
  } catch (e) {
    throw e instanceof SyntaxError ? new Error(`${tcFile}: invalid JSON (${e.message})`) : e;
  }
  const template = (await chatTemplateSource(dir, tc)) ?? null;
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      base: PACKAGE_ANCHOR,
      budget: TEMPLATE_BUDGET_MODULE,
      tokenizerJson,
      tokenizerConfig,
      template,
      messages,
      probes: PROBES,
      limits: limits.template,
    },
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 64 },
    stdout: true,
    stderr: true,
  });
  return new Promise<TokenizerInspection>((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(
        new InspectionLimitError(
          `the tokenizer and chat template of ${dir} took longer than ${limits.timeoutMs} ms to build, probe and render a short conversation; a chat template that loops or a tokenizer.json regex that backtracks without bound is refused`,
        ),
      );
    }, limits.timeoutMs);
    const done = () => clearTimeout(timer);
    worker.once('message', (m: { ok?: Omit<TokenizerInspection, 'chatTemplate'>; error?: string; limit?: boolean; parse?: boolean }) => {
      done();
      void worker.terminate();
      if (m.ok) resolve({ ...m.ok, chatTemplate: template });
      else if (m.limit) reject(new InspectionLimitError(m.error));
      else if (m.parse) reject(new Error(`${dir}: chat_template does not parse (${m.error})`));
      else reject(new Error(`${dir}: the tokenizer cannot be built (${m.error})`));
    });
    worker.once('error', (e: Error & { code?: string }) => {
      done();
      reject(
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new InspectionLimitError(`the tokenizer and chat template of ${dir} needed more than ${limits.heapMb} MB of memory; refused`)
          : new Error(`${dir}: the tokenizer cannot be built (${e.message})`),
      );
    });
    worker.once('exit', () => {
      done();
      reject(new Error(`${dir}: the tokenizer inspection thread ended without an answer`));
    });
  });
}
