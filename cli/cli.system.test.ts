import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { identify } from '@/server/auth/identity';
import { appRouter } from '@/server/routers';
import { runCrucible } from '@/test/cli';
import { STORIES260K_DIR } from '@/test/models';
import { freshDatabase, ownerConnection } from '@/test/database';

let database: Database;

/** Run the real `crucible` binary against the test database. */
const crucible = (args: string[], env: Record<string, string> = {}) => runCrucible(args, { DATABASE_URL: database.url, ...env });

beforeAll(async () => {
  database = await freshDatabase();
});

describe('crucible CLI (local, straight to the database)', () => {
  it('creates, lists, pauses, resumes and cancels runs with --json output', async () => {
    const created = await crucible(['runs', 'create', '--name', 'cli smoke', '--set', 'algorithm=ppo', '--set', 'quota.cpus=1', '--json']);
    expect(created.code).toBe(0);
    const run = JSON.parse(created.stdout) as { id: string; status: string; config: { algorithm: string; quota: { cpus: number; memoryMb: number } } };
    expect(run.config.algorithm).toBe('ppo');
    expect(run.config.quota).toMatchObject({ cpus: 1, memoryMb: 4096 });
    const listed = JSON.parse((await crucible(['runs', 'list', '--json'])).stdout) as { items: { id: string }[] };
    expect(listed.items.map((r) => r.id)).toContain(run.id);
    expect(JSON.parse((await crucible(['runs', 'pause', run.id, '--json'])).stdout).status).toBe('paused');
    expect(JSON.parse((await crucible(['runs', 'cancel', run.id, '--json'])).stdout).status).toBe('cancelled');
    const refused = await crucible(['runs', 'resume', run.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cancelled run cannot be resumed/);
  });

  it('--set reaches every learner option, and temperature 0 is refused with the reason', async () => {
    const sets = [
      'scaleAdvantagesByStd=false',
      'lossAggregation=token-sum-norm',
      'entropyCoef=0.01',
      'clipRatioC=5',
      'klIn=reward',
      'klEstimator=k2',
      'valueCoef=1',
      'valueClip=0.5',
      'whitenAdvantages=true',
      'temperature=0.7',
    ];
    const created = await crucible(['runs', 'create', '--name', 'learner options', ...sets.flatMap((kv) => ['--set', kv]), '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { config } = JSON.parse(created.stdout) as { config: Record<string, unknown> };
    expect(config).toMatchObject({
      scaleAdvantagesByStd: false,
      lossAggregation: 'token-sum-norm',
      entropyCoef: 0.01,
      clipRatioC: 5,
      klIn: 'reward',
      klEstimator: 'k2',
      valueCoef: 1,
      valueClip: 0.5,
      whitenAdvantages: true,
      temperature: 0.7,
    });
    const greedy = await crucible(['runs', 'create', '--name', 'greedy', '--set', 'temperature=0']);
    expect(greedy.code).toBe(1);
    expect(greedy.stderr).toMatch(/config\.temperature.*above 0.*greedy/s);
  });

  it('--tools picks the agent tool set (submit always) and agent budgets go through --set; an unknown tool is refused', async () => {
    const created = await crucible(['runs', 'create', '--name', 'tools', '--tools', 'bash, str_replace', '--set', 'agentTokenBudget=2048', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).config).toMatchObject({ tools: ['bash', 'str_replace', 'submit'], agentTokenBudget: 2048 });
    const bad = await crucible(['runs', 'create', '--name', 'x', '--tools', 'bash,rm']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/config\.tools\.1/);
  });

  it('bad input and unknown commands fail with a message that says what to do', async () => {
    const bad = await crucible(['runs', 'create', '--name', 'x', '--set', 'groupSize=0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/config\.groupSize/);
    // the API's answer as one line saying what is wrong, not a client error's stack trace
    expect(bad.stderr).toMatch(/^crucible: invalid input: config\.groupSize[^\n]*\n$/);
    const unknown = await crucible(['runs', 'explode']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "runs explode"/);
    const help = await crucible(['runs', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: crucible runs create --name NAME/);
  });

  it('where no Crucible ever ran, a command says where it looked instead of creating an empty database', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-no-data-'));
    try {
      const r = await runCrucible(['runs', 'list'], { DATABASE_URL: '', CRUCIBLE_DATA_DIR: empty });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no Crucible found: DATABASE_URL is not set, nothing is running with data in ${empty}`);
      expect(r.stderr).toContain('--url http://HOST:3000 --token');
      expect(fs.existsSync(path.join(empty, 'pg'))).toBe(false);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  // each `runs create` below is a new process that probes this host's sandbox runtimes for the
  // launch check (seconds; about 20 s on a loaded host): more time than one test's default
  it('--model, --training and --lora-* choose the policy', { timeout: 240_000 }, async () => {
    // the model registry keeps files in this data dir's artifact store (not the repository's .data/)
    const dataDir = { CRUCIBLE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-cli-policy-')) };
    const imported = await crucible(['models', 'import', STORIES260K_DIR, '--name', 'stories260K'], dataDir);
    expect(imported.code, imported.stderr).toBe(0);
    const policyOf = async (args: string[]) => {
      const r = await crucible(['runs', 'create', '--name', 'policy', ...args, '--json'], dataDir);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { config: { policy: unknown } }).config.policy;
    };
    expect(await policyOf([])).toEqual({ kind: 'byte' });
    // a registered model trains on text tasks: the built-in stories suite
    expect(await policyOf(['--model', 'stories260K', '--lora-rank', '4', '--lora-targets', 'q_proj, k_proj', '--set', 'suite=stories'])).toEqual({
      kind: 'hf',
      model: 'stories260K',
      training: 'lora',
      precision: 'fp32',
      lora: { rank: 4, alpha: 16, targetModules: ['q_proj', 'k_proj'] },
    });
    expect(await policyOf(['--model', 'stories260K', '--training', 'full', '--precision', 'bf16', '--set', 'suite=stories'])).toMatchObject({
      kind: 'hf',
      model: 'stories260K',
      training: 'full',
      precision: 'bf16',
    });
    // (the text output says which policy the run got)
    const full = await crucible(['runs', 'create', '--name', 'policy text', '--model', 'stories260K', '--training', 'full', '--set', 'suite=stories'], dataDir);
    expect(full.stdout).toMatch(/policy stories260K · full fine-tuning/);
    const half = await crucible(
      ['runs', 'create', '--name', 'policy fp16', '--model', 'stories260K', '--precision', 'fp16', '--set', 'suite=stories'],
      dataDir,
    );
    expect(half.stdout).toMatch(/policy stories260K · LoRA r=8 α=16 on q_proj, v_proj · fp16 mixed precision/);
  });

  it('policy flags that cannot go together are refused before the API; bad values by the API', { timeout: 240_000 }, async () => {
    const dataDir = { CRUCIBLE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-cli-policy-')) };
    // refused by the CLI (usage, exit 2): what the flags cannot mean together
    const refused = async (args: string[], message: RegExp, code = 2) => {
      const r = await crucible(['runs', 'create', '--name', 'refused', ...args], dataDir);
      expect(r.stderr).toMatch(message);
      expect(r.code, r.stderr).toBe(code);
    };
    await refused(['--lora-rank', '4'], /--lora-rank applies to a registered model: add --model NAME/);
    await refused(['--training', 'full'], /--training applies to a registered model/);
    await refused(['--model', 'stories260K', '--training', 'full', '--lora-rank', '4'], /--lora-rank cannot be used with --training full/);
    await refused(['--model', 'stories260K', '--training', 'half'], /--training must be full or lora, got "half"/);
    await refused(['--precision', 'bf16'], /--precision applies to a registered model/);
    await refused(['--model', 'stories260K', '--precision', 'fp8'], /--precision must be fp32, fp16, bf16, got "fp8"/);
    await refused(['--model', 'stories260K', '--lora-rank', 'big'], /--lora-rank must be a number, got "big"/);
    await refused(['--model', 'stories260K', '--lora-targets', 'q_proj,x_proj'], /unknown module "x_proj"; choose from q_proj, k_proj/);
    await refused(['--model', 'stories260K', '--set', 'policy.kind=byte'], /the policy is given twice/);
    // refused by the API (exit 1), naming the config path: ranges (checked before the model's
    // registration), an unregistered model
    await refused(['--model', 'stories260K', '--lora-rank', '0'], /config\.policy\.lora\.rank/, 1);
    await refused(['--model', 'nope'], /no model named "nope" is registered/, 1);
    await refused(['--model', 'stories260K'], /a registered model runs text and repository tasks, but suite "builtin" holds io tasks/, 1);
  });

  it('audit verify exits 0 on an intact chain and 1 after a row is edited in SQL', async () => {
    // Its own anchor file: one shared with other databases' anchors fails verify (server/audit/anchors.ts).
    const dataDir = { CRUCIBLE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-cli-audit-')) };
    expect((await crucible(['audit', 'verify'], dataDir)).code).toBe(0);
    // Only the schema owner can switch the trigger off; the app role the CLI runs as cannot.
    await ownerConnection(database).sql.begin(async (tx) => {
      await tx`alter table audit_log disable trigger audit_log_no_update_delete`;
      await tx`update audit_log set actor = 'cli:mallory' where seq = (select min(seq) from audit_log)`;
      await tx`alter table audit_log enable trigger audit_log_no_update_delete`;
    });
    const v = await crucible(['audit', 'verify', '--json'], dataDir);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: false, reason: expect.stringMatching(/modified/) });
  });
});

describe('crucible CLI over the tRPC API (--url, --token)', () => {
  let url: string;
  let close: () => void;
  beforeAll(async () => {
    const server = createHTTPServer({
      basePath: '/api/trpc/',
      router: appRouter,
      createContext: async ({ req }) => {
        const headers = new Headers(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])));
        return { db: database.db, user: await identify(database.db, headers) };
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close?.());

  it('users add + tokens create locally, then the token drives runs over HTTP with its role enforced', async () => {
    expect((await crucible(['users', 'add', 'ops', '--role', 'operator', '--json'])).code).toBe(0);
    expect((await crucible(['users', 'add', 'rev', '--role', 'reviewer'])).code).toBe(0);
    const opTok = JSON.parse((await crucible(['tokens', 'create', '--name', 'bot', '--user', 'ops', '--json'])).stdout).token as string;
    const revTok = JSON.parse((await crucible(['tokens', 'create', '--name', 'bot', '--user', 'rev', '--json'])).stdout).token as string;
    const created = await crucible(['runs', 'create', '--name', 'remote', '--json', '--url', url, '--token', opTok]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).name).toBe('remote');
    const denied = await crucible(['runs', 'create', '--name', 'nope', '--url', url], { CRUCIBLE_TOKEN: revTok });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/reviewer.*cannot launch/);
    expect(denied.stderr).toMatch(/^crucible: [^\n]*\n$/); // one line over HTTP too
    const [row] = await database.sql`select actor from audit_log where action = 'run.create' order by seq desc limit 1`;
    expect(row!.actor).toBe('token:ops');
  });
});
