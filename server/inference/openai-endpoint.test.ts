import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '@/db/client';
import { CHAT_FAMILIES, familyModelDir } from '@/test/chat-models';
import { freshDatabase } from '@/test/database';
import { STORIES260K_DIR } from '@/test/models';
import { serveRoutes } from '@/test/route-server';

// The OpenAI-compatible endpoint with the official `openai` client as the caller, over a real
// HTTP server in front of the route handlers: a tiny random Qwen2.5 (its real chat template,
// tools rendered in it, Hermes tool calls) and the pretrained stories260K, both registered models.

let database: Database;
let tmp: string;
let server: Awaited<ReturnType<typeof serveRoutes>>;
let client: OpenAI;
let tokens: Record<'operator' | 'viewer', string>;
let qwenDir = '';

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'run_shell_command',
      description: 'Run a shell command',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
];
const MESSAGES: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a careful engineer.' },
  { role: 'user', content: 'List the files.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run_shell_command', arguments: '{"command": "ls"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'README.md\nsrc' },
];

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-openai-'));
  vi.stubEnv('CRUCIBLE_DATA_DIR', path.join(tmp, 'data'));
  vi.stubEnv('CRUCIBLE_ARTIFACT_BACKEND', 'database');
  database = await freshDatabase();
  vi.resetModules(); // modules read the settings above
  const [{ openAiRoutes }, { importModel, modelStore }, { createToken }, { createUser }] = await Promise.all([
    import('@/server/http/openai-routes'),
    import('@/server/models/service'),
    import('@/server/tokens/service'),
    import('@/server/users/service'),
  ]);
  const qwen = await familyModelDir(
    path.join(tmp, 'qwen'),
    CHAT_FAMILIES.find((f) => f.name === 'qwen2.5')!,
    { maxPositionEmbeddings: 8192 },
  );
  qwenDir = qwen;
  const { store } = modelStore(database.db);
  await importModel(database.db, store, { name: 'tiny-qwen', dir: qwen }, 'test');
  await importModel(database.db, store, { name: 'stories260K', dir: STORIES260K_DIR }, 'test');
  await store.close();
  tokens = { operator: '', viewer: '' };
  for (const role of ['operator', 'viewer'] as const) {
    await createUser(database.db, { username: `${role}-oa`, password: 'correct horse battery', role }, 'test');
    tokens[role] = (await createToken(database.db, `${role}-oa`, 'openai test', 'test')).token;
  }
  const r = openAiRoutes(async () => database.db, { CRUCIBLE_TRUST_PROXY: false });
  server = await serveRoutes({
    '/api/v1/models': { GET: r.models },
    '/api/v1/chat/completions': { POST: r.chatCompletions },
    '/api/v1/completions': { POST: r.completions },
  });
  client = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: tokens.operator, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  await fs.rm(tmp, { recursive: true, force: true });
});

/** vLLM's token-id extensions, which the typed client does not know. */
type WithIds<T extends { choices: unknown[] }> = Omit<T, 'choices'> & {
  prompt_token_ids: number[];
  choices: (T['choices'][number] & { token_ids: number[] })[];
};

describe('an OpenAI-compatible endpoint, called by the official openai client', () => {
  it('lists the registered models', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids.sort()).toEqual(['stories260K', 'tiny-qwen']);
  });

  it('chat with tools: the template renders them, n choices with logprobs, top_logprobs and token ids, replayed by seed', async () => {
    const ask = (seed: number) =>
      client.chat.completions.create({
        model: 'tiny-qwen',
        messages: MESSAGES,
        tools: TOOLS,
        max_tokens: 6,
        n: 2,
        seed,
        logprobs: true,
        top_logprobs: 3,
        // @ts-expect-error vLLM's extension
        return_token_ids: true,
      }) as unknown as Promise<WithIds<OpenAI.Chat.Completions.ChatCompletion>>;
    const a = await ask(7);
    expect(a.object).toBe('chat.completion');
    expect(a.choices).toHaveLength(2);
    // the prompt is the model's own template over the conversation: the tool schema, the call and its result are in it
    expect(a.prompt_token_ids.length).toBe(a.usage!.prompt_tokens);
    // the tools are rendered by the model's template: the same conversation without them is shorter by their schema
    const bare = (await client.chat.completions.create({
      model: 'tiny-qwen',
      messages: MESSAGES,
      max_tokens: 1,
      // @ts-expect-error vLLM's extension
      return_token_ids: true,
    })) as unknown as WithIds<OpenAI.Chat.Completions.ChatCompletion>;
    expect(a.prompt_token_ids.length).toBeGreaterThan(bare.prompt_token_ids.length + 20);
    for (const c of a.choices) {
      expect(c.token_ids.length).toBeGreaterThan(0);
      expect(c.token_ids.length).toBeLessThanOrEqual(6);
      const lp = c.logprobs!.content!;
      expect(lp).toHaveLength(c.token_ids.length);
      for (const t of lp) {
        expect(t.logprob).toBeLessThanOrEqual(0);
        expect(t.top_logprobs).toHaveLength(3);
        const tops = t.top_logprobs.map((x) => x.logprob);
        expect(tops).toEqual([...tops].sort((x, y) => y - x));
        // the chosen token's logprob is under the same distribution: never above the likeliest
        expect(t.logprob).toBeLessThanOrEqual(tops[0]! + 1e-6);
      }
    }
    expect(a.usage!.completion_tokens).toBe(a.choices.reduce((n, c) => n + c.token_ids.length, 0));
    const again = await ask(7);
    expect(again.choices.map((c) => c.token_ids)).toEqual(a.choices.map((c) => c.token_ids));
    expect(a.choices[0]!.token_ids).not.toEqual(a.choices[1]!.token_ids); // n rows draw apart
    expect(again.prompt_token_ids).toEqual(a.prompt_token_ids);
  });

  it('streams token by token: the chunks add up to the same message as without streaming', async () => {
    const body = { model: 'tiny-qwen', messages: [{ role: 'user' as const, content: 'Say something.' }], max_tokens: 12, seed: 3, temperature: 0.8 };
    const whole = await client.chat.completions.create(body);
    const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let deltas = 0;
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) deltas++;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(deltas).toBeGreaterThan(1); // the text came in pieces as tokens were sampled
    expect(finish).toBe(whole.choices[0]!.finish_reason);
    expect(usage).toEqual(whole.usage);
    // with tools the message is streamed whole at its end (a call is only known once complete)
    const withTools = await client.chat.completions.create({ ...body, tools: TOOLS, stream: true });
    let toolText = '';
    for await (const chunk of withTools) toolText += chunk.choices[0]?.delta.content ?? '';
    const toolWhole = await client.chat.completions.create({ ...body, tools: TOOLS });
    expect(toolText).toBe(toolWhole.choices[0]!.message.content ?? '');
  });

  it('completions on a pretrained model: greedy text, stop strings, echo and the legacy logprobs', async () => {
    const r = await client.completions.create({ model: 'stories260K', prompt: 'Once upon a time', max_tokens: 24, temperature: 0, logprobs: 2 });
    const text = r.choices[0]!.text;
    expect(text.length).toBeGreaterThan(10);
    const lp = r.choices[0]!.logprobs!;
    expect(lp.tokens!.length).toBe(r.usage!.completion_tokens);
    expect(lp.top_logprobs!.every((t) => Object.keys(t).length >= 1 && Object.keys(t).length <= 2)).toBe(true);
    // greedy: each chosen token is the likeliest of its step
    lp.token_logprobs!.forEach((l, i) => expect(l).toBeCloseTo(Math.max(...Object.values(lp.top_logprobs![i]!)), 5));
    const again = await client.completions.create({ model: 'stories260K', prompt: 'Once upon a time', max_tokens: 24, temperature: 0 });
    expect(again.choices[0]!.text).toBe(text);
    // a stop string cuts the text there, finish_reason stop
    const cutAt = text.trim().split(' ')[1]!;
    const stopped = await client.completions.create({ model: 'stories260K', prompt: 'Once upon a time', max_tokens: 24, temperature: 0, stop: [cutAt] });
    expect(stopped.choices[0]!.text).toBe(text.slice(0, text.indexOf(cutAt)));
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
    // sampling ended there, not at max_tokens: the tokens end with the one that completed the stop string
    expect(stopped.usage!.completion_tokens).toBeLessThan(r.usage!.completion_tokens);
    const echoed = await client.completions.create({ model: 'stories260K', prompt: 'Once upon a time', max_tokens: 4, temperature: 0, echo: true });
    expect(echoed.choices[0]!.text.startsWith('Once upon a time')).toBe(true);
  });

  it("serves a run's policy as run:RUN_ID: the trained version's weights, not the base model's", async () => {
    const [{ runConfigSchema }, { runs, policyVersions, models }, { HfRlPolicy }, { modelStore }, { eq }] = await Promise.all([
      import('@/core/run-config'),
      import('@/db/schema'),
      import('@/lib/policy/hf/hf-rl-policy'),
      import('@/server/models/service'),
      import('drizzle-orm'),
    ]);
    const config = runConfigSchema.parse({ suite: 'stories', policy: { kind: 'hf', model: 'tiny-qwen', training: 'lora', lora: { rank: 4, alpha: 16 } } });
    const [run] = await database.db.insert(runs).values({ name: 'served', config, status: 'completed' }).returning();
    // a trained version: a few steps that move the adapter, saved as the RL loop saves one and published by hash
    const [model] = await database.db.select().from(models).where(eq(models.name, 'tiny-qwen'));
    const policy = await HfRlPolicy.create(qwenDir, {
      training: config.policy.kind === 'hf' ? { training: 'lora', lora: config.policy.lora } : never(),
      optim: { lr: 0.05 },
      seed: 1,
      base: model!.weightsSha256,
    });
    const seq = policy.encodePrompt('Once upon a time there was a robot that liked tea.');
    for (let i = 0; i < 5; i++) await policy.trainStep([{ tokens: seq, lossMask: seq.map(() => 1) }], { kind: 'sft' });
    const file = path.join(tmp, 'v1.ckpt');
    await policy.save(file);
    const { store } = modelStore(database.db);
    const ref = await store.publishFile(file);
    await store.close();
    await database.db.insert(policyVersions).values({ runId: run!.id, version: 1, sha256: ref.sha256, bytes: ref.size });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain(`run:${run!.id}`);

    const ask = (model: string) =>
      client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 8, temperature: 0, logprobs: 1 }) as Promise<OpenAI.Completions.Completion>;
    const served = await ask(`run:${run!.id}`);
    const pinned = await ask(`run:${run!.id}@v1`);
    const base = await ask('tiny-qwen');
    // the trained weights: the same greedy tokens as the policy itself gives, with its logprobs; not the base model's
    const [direct] = await policy.samplerWithWeights().sample([policy.encodePrompt('Once upon a time')], { maxNewTokens: 8, temperature: 0 });
    expect(served.choices[0]!.logprobs!.token_logprobs).toEqual(direct!.logprobs.map((l) => expect.closeTo(l, 5)));
    expect(pinned.choices[0]!.text).toBe(served.choices[0]!.text);
    expect(base.choices[0]!.logprobs!.token_logprobs).not.toEqual(served.choices[0]!.logprobs!.token_logprobs);
    await policy.release();
    await expect(ask(`run:${run!.id}@v7`)).rejects.toMatchObject({ status: 404, message: expect.stringContaining('has no policy version v7') });
  });

  it('refuses what it cannot serve with OpenAI-style errors the client maps', async () => {
    await expect(client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('no model named "no-such-model"'),
    });
    await expect(client.chat.completions.create({ model: 'tiny-qwen', messages: [] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('messages: send at least one message'),
    });
    await expect(
      client.chat.completions.create({ model: 'tiny-qwen', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100_000 }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("this model's context is 8192 tokens"),
    });
    // one request's batch is bounded: n × (prompt + max_tokens)
    await expect(
      client.chat.completions.create({ model: 'tiny-qwen', messages: [{ role: 'user', content: 'hi' }], n: 16, max_tokens: 5000 }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('more than one request may hold (65536)') });
    // stories260K has no chat template: chat is refused, completions work
    await expect(client.chat.completions.create({ model: 'stories260K', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400 });
    const anonymous = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: 'crc_not-a-token', maxRetries: 0 });
    await expect(anonymous.completions.create({ model: 'stories260K', prompt: 'x' })).rejects.toMatchObject({ status: 401 });
    const viewer = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: tokens.viewer, maxRetries: 0 });
    await expect(viewer.completions.create({ model: 'stories260K', prompt: 'x' })).rejects.toMatchObject({ status: 403 });
    const listed = await viewer.models.list();
    expect(listed.data.filter((m) => !m.id.startsWith('run:')).length).toBe(2);
  });
});

function never(): never {
  throw new Error('unreachable');
}
