import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HfTokenizer } from './tokenizer';
import { STORIES260K_DIR } from '@/test/models';

const STORIES = STORIES260K_DIR;

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-hf-tok-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A model dir with stories260K's tokenizer.json and the given tokenizer_config.json fields. */
async function dirWith(name: string, config: Record<string, unknown>, files: Record<string, string> = {}) {
  const dir = path.join(tmp, name);
  await fs.mkdir(dir, { recursive: true });
  await fs.copyFile(path.join(STORIES, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  const base = JSON.parse(await fs.readFile(path.join(STORIES, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  await fs.writeFile(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ ...base, ...config }));
  for (const [f, text] of Object.entries(files)) await fs.writeFile(path.join(dir, f), text);
  return dir;
}

const TEMPLATE =
  "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'system' %}{{ m['content'] + '\\n\\n' }}{% elif m['role'] == 'user' %}" +
  "{{ 'User: ' + m['content'] + '\\n' }}{% else %}{{ 'Assistant: ' + m['content'] + eos_token + '\\n' }}{% endif %}{% endfor %}" +
  "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}";
const CONVERSATION = [
  { role: 'system', content: 'Tell stories.' },
  { role: 'user', content: 'A story about a cat' },
  { role: 'assistant', content: 'Once upon a time' },
  { role: 'user', content: 'Another' },
];
const RENDERED = '<s>Tell stories.\n\nUser: A story about a cat\nAssistant: Once upon a time</s>\nUser: Another\nAssistant:';

describe('Hugging Face tokenizer (tokenizer.json through @huggingface/tokenizers)', () => {
  it("stories260K's tokenizer gives SentencePiece's ids and text for the 51 reference strings", async () => {
    const tok = await HfTokenizer.load(STORIES);
    const ref = JSON.parse(await fs.readFile(path.join(STORIES, 'tokenizer_reference.json'), 'utf8')) as {
      cases: { text: string; ids: number[]; decoded: string }[];
    };
    expect(ref.cases).toHaveLength(51);
    for (const c of ref.cases) {
      expect(tok.encode(c.text, { specialTokens: false }), c.text).toEqual(c.ids);
      expect(tok.decode(c.ids), c.text).toBe(c.decoded);
    }
    expect(tok.encode('Once upon a time')).toEqual([1, 403, 407, 261, 378]); // the post-processor adds BOS
    expect([tok.bos, tok.eos, tok.pad, tok.vocabSize]).toEqual([1, 2, undefined, 512]);
  });

  it('renders a chat template with @huggingface/jinja and encodes it with its special tokens', async () => {
    const tok = await HfTokenizer.load(await dirWith('chat', { chat_template: TEMPLATE }));
    expect(tok.renderChat(CONVERSATION)).toBe(RENDERED);
    expect(tok.renderChat(CONVERSATION, { addGenerationPrompt: false })).toBe(RENDERED.slice(0, -'Assistant:'.length));
    const ids = tok.encodeChat(CONVERSATION);
    expect(ids[0]).toBe(1);
    expect(ids.filter((t) => t === 1)).toHaveLength(1); // BOS from the template only, none added on top
    expect(ids.filter((t) => t === 2)).toHaveLength(1); // the assistant turn's EOS is the special token
    expect(ids).not.toContain(0);
  });

  it('reads chat_template from a named list or from chat_template.jinja', async () => {
    const listed = await HfTokenizer.load(await dirWith('list', { chat_template: [{ name: 'default', template: TEMPLATE }] }));
    expect(listed.renderChat(CONVERSATION)).toBe(RENDERED);
    const file = await HfTokenizer.load(await dirWith('file', {}, { 'chat_template.jinja': TEMPLATE }));
    expect(file.renderChat(CONVERSATION)).toBe(RENDERED);
  });

  it('says what is missing or broken', async () => {
    const none = await HfTokenizer.load(STORIES);
    expect(() => none.renderChat(CONVERSATION)).toThrow(/no chat template/);
    await expect(HfTokenizer.load(await dirWith('bad-template', { chat_template: '{% for %}' }))).rejects.toThrow(
      /tokenizer_config\.json: chat_template does not parse/,
    );
    const noTok = path.join(tmp, 'no-tokenizer');
    await fs.mkdir(noTok);
    await expect(HfTokenizer.load(noTok)).rejects.toThrow(/no-tokenizer\/tokenizer\.json: cannot read \(ENOENT\)/);
  });
});
