import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import { TEST_STORE, testDataDir, ensureTestEnvironment } from '@/lib/sandbox/sandbox.testkit';

// Real `crucible` processes (scripts/crucible.mjs) with stdout to a pipe, as automation reads them.
const root = path.resolve(import.meta.dirname, '..');
let dataDir: string;
beforeAll(() => {
  ensureTestEnvironment();
  dataDir = testDataDir('cli-output');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Run the CLI with stdout and stderr to pipes. The stdout reader starts `readAfterMs` late (or
 * when the CLI exits, if sooner), as a busy consumer would: the pipe fills, and what the CLI
 * still has queued when it is done must not be lost.
 */
function crucible(args: string[], readAfterMs = 0): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts/crucible.mjs'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv({ CRUCIBLE_DATA_DIR: dataDir, CRUCIBLE_ENV_STORE: TEST_STORE, DATABASE_URL: '' }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.pause();
    const timer = setTimeout(() => child.stdout.resume(), readAfterMs);
    child.on('exit', () => {
      clearTimeout(timer);
      child.stdout.resume();
    });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

describe('crucible sandbox exec output', () => {
  it('--json writes the complete JSON to a pipe that is read late (1 MB of sandbox output)', async () => {
    const r = await crucible(
      [
        'sandbox',
        'exec',
        '--json',
        '--output-bytes',
        String(2 * 1024 * 1024),
        '--timeout-ms',
        '20000',
        '--',
        'python3',
        '-c',
        "import sys; sys.stdout.write('a' * 1_000_000 + '\\nend')",
      ],
      10_000,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(1_000_000);
    const j = JSON.parse(r.stdout) as { status: string; stdout: string; stdoutTruncated: boolean };
    expect(j).toMatchObject({ status: 'ok', stdoutTruncated: false });
    expect(j.stdout).toHaveLength(1_000_004);
    expect(j.stdout.endsWith('a\nend')).toBe(true);
  }, 120_000);

  it('human mode prints what sandboxed code wrote terminal-safe; --json keeps the exact bytes', async () => {
    const evil = "import sys; sys.stdout.write('title\\x1b]0;pwned\\x07\\x1b[2J\\u202eok\\n'); sys.stderr.write('err\\x1b[31m\\n')";
    const human = await crucible(['sandbox', 'exec', '--', 'python3', '-c', evil]);
    expect(human.code, human.stderr).toBe(0);
    for (const [name, text] of [
      ['stdout', human.stdout],
      ['stderr', human.stderr],
    ] as const) {
      expect(/[\x07\x1b\u202e]/.test(text), `${name}: ${JSON.stringify(text)}`).toBe(false);
    }
    expect(human.stdout).toBe('title\\x1b]0;pwned\\x07\\x1b[2J\\u202eok\n');
    expect(human.stderr).toContain('err\\x1b[31m\n');
    const json = await crucible(['sandbox', 'exec', '--json', '--', 'python3', '-c', evil]);
    expect((JSON.parse(json.stdout) as { stdout: string }).stdout).toBe('title\x1b]0;pwned\x07\x1b[2J\u202eok\n');
  }, 120_000);
});
