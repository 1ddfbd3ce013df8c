import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { env, signIn, trpc } from './support';

// The step API's Python client from docs/agents.md, run as written with Debian's python3
// against the started Crucible: a session of a built-in repository task, a step, submit, a
// grade in a clean sandbox, close. And the plain-JSON route's refusals.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');

function pythonClient(): string {
  const doc = fs.readFileSync(path.join(root, 'docs', 'agents.md'), 'utf8');
  const m = /<!-- step-api-client:start -->\n```python\n([\s\S]*?)```\n<!-- step-api-client:end -->/.exec(doc);
  if (!m) throw new Error('docs/agents.md has no step-api-client block between its markers');
  return m[1]!;
}

test('step API: the documented Python client opens, steps, grades and closes a session; the OpenAI routes answer', async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page, 'admin', env.adminPassword);
  const created = (await trpc(page, 'tokens.create', { name: `step-api-${Date.now().toString(36)}` })) as { token: string };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-step-api-'));
  try {
    const script = path.join(dir, 'client.py');
    fs.writeFileSync(script, pythonClient());
    const { stdout } = await run('python3', [script], {
      // only what the client reads (Next's types make NODE_ENV required in a ProcessEnv)
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', CRUCIBLE_URL: env.baseUrl, CRUCIBLE_TOKEN: created.token, CRUCIBLE_TASK: 'py-calc-precedence' } as never,
      timeout: 200_000,
    });
    expect(stdout).toMatch(/^task: /);
    expect(stdout).toContain('calc'); // the ls -R listing of the task's workspace
    const result = JSON.parse(/^\{.*\}$/m.exec(stdout)![0]) as { done: boolean; reward: number; resolved: number };
    // nothing was fixed: submitted, graded, not resolved
    expect(result).toMatchObject({ done: true, resolved: 0 });
    expect(result.reward).toBeLessThan(1);
    expect(stdout).toContain('closed: closed');

    // the plain-JSON route's refusals, as a client without a token or with bad input sees them
    const anonymous = await fetch(`${env.baseUrl}/api/v1/environments/session`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    const auth = { authorization: `Bearer ${created.token}` };
    const bad = await fetch(`${env.baseUrl}/api/v1/environments/step`, { method: 'POST', headers: auth, body: '{"session": "nope"}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/session: session must be a uuid/);
    const unknown = await fetch(`${env.baseUrl}/api/v1/environments/teleport`, { method: 'POST', headers: auth, body: '{}' });
    expect(unknown.status).toBe(404);
    const notJson = await fetch(`${env.baseUrl}/api/v1/environments/reset`, { method: 'POST', headers: auth, body: '{' });
    expect(notJson.status).toBe(400);

    // the OpenAI-compatible endpoint is served by the built app too (server/inference/openai-endpoint.test.ts covers it)
    const models = await fetch(`${env.baseUrl}/api/v1/models`, { headers: auth });
    expect(models.status).toBe(200);
    expect(await models.json()).toMatchObject({ object: 'list', data: expect.any(Array) });
    const noModel = await fetch(`${env.baseUrl}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(noModel.status).toBe(404);
    expect(((await noModel.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
