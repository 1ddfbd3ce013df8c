import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '@/core/settings';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { terminalSafe } from './terminal-safe';

/** Retitles the terminal window (OSC 0, ended by BEL) and clears the screen (CSI 2J). */
const EVIL = '\x1b]0;pwned\x07\x1b[2J';
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J';
/** Anything a terminal would act on: C0 but \t \n, DEL, C1, bidi overrides and isolates; a lone \r. */
const RAW_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

describe('terminalSafe', () => {
  it('turns ESC sequences, C0/C1 controls and bidi overrides into visible escapes, keeps \\n, \\t and CRLF', () => {
    expect(terminalSafe(EVIL)).toBe(SHOWN);
    expect(terminalSafe('a\tb\nc\r\nd')).toBe('a\tb\nc\r\nd');
    expect(terminalSafe('done 10%\rdone 100%')).toBe('done 10%\\x0ddone 100%');
    expect(terminalSafe('\x00\x08\x0b\x7f')).toBe('\\x00\\x08\\x0b\\x7f');
    expect(terminalSafe('\u009b31m\u0085')).toBe('\\x9b31m\\x85'); // C1 CSI and NEL
    expect(terminalSafe('invoice\u202egpj.exe \u2066x\u2069')).toBe('invoice\\u202egpj.exe \\u2066x\\u2069');
    expect(terminalSafe('naïve — 日本語 ✓')).toBe('naïve — 日本語 ✓'); // ordinary text is untouched
    expect(terminalSafe(terminalSafe(EVIL))).toBe(SHOWN); // idempotent: safe to apply at several layers
    expect(RAW_CONTROL.test(terminalSafe(`${EVIL}\u202e\u0090\r`))).toBe(false);
  });
});

const run = promisify(execFile);
let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

/** Run the real `crucible` binary against the test database. */
async function crucible(args: string[]) {
  try {
    const { stdout, stderr } = await run('node', ['scripts/crucible.mjs', ...args], { env: childEnv({ DATABASE_URL: database.url }), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function expectTerminalSafe(r: { stdout: string; stderr: string }, what: string) {
  expect(r.stdout.includes('\x1b') || r.stdout.includes('\x07'), `${what} stdout: ${JSON.stringify(r.stdout)}`).toBe(false);
  expect(r.stderr.includes('\x1b') || r.stderr.includes('\x07'), `${what} stderr: ${JSON.stringify(r.stderr)}`).toBe(false);
  expect(RAW_CONTROL.test(r.stdout + r.stderr), what).toBe(false);
}

describe('the CLI prints user-supplied text terminal-safe; --json stays exact', () => {
  it('run names, display names, task ids and errors echoing input', async () => {
    const created = await crucible(['runs', 'create', '--name', `run ${EVIL}`]);
    expect(created.code, created.stderr).toBe(0);
    expectTerminalSafe(created, 'runs create');
    expect(created.stdout).toContain(SHOWN);
    const listed = await crucible(['runs', 'list']);
    expectTerminalSafe(listed, 'runs list');
    expect(listed.stdout).toContain(`run ${SHOWN}`);
    // JSON output is exact: JSON escapes control characters itself, and the name round-trips.
    const json = await crucible(['runs', 'list', '--json']);
    expect(json.stdout.includes('\x1b')).toBe(false);
    expect((JSON.parse(json.stdout) as { items: { name: string }[] }).items.map((r) => r.name)).toContain(`run ${EVIL}`);

    expect((await crucible(['users', 'add', 'mallory', '--role', 'viewer', '--display-name', `Mal ${EVIL}\u202eyrollam`])).code).toBe(0);
    const users = await crucible(['users', 'list']);
    expectTerminalSafe(users, 'users list');
    expect(users.stdout).toContain(`Mal ${SHOWN}\\u202eyrollam`);

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crucible-tsafe-')), 'tasks.jsonl');
    fs.writeFileSync(
      file,
      `${JSON.stringify({ id: `t${EVIL}`, language: 'python', prompt: 'def f(x):\n', entryPoint: 'f', tests: [{ input: [1], expected: 1 }] })}\n`,
    );
    const imported = await crucible(['tasks', 'import', file, '--suite', 'evil-suite']);
    expect(imported.code, imported.stderr).toBe(0);
    const tasks = await crucible(['tasks', 'list', '--suite', 'evil-suite']);
    expectTerminalSafe(tasks, 'tasks list');
    expect(tasks.stdout).toContain(`t${SHOWN}`);

    // Errors that echo what was typed.
    const badFormat = await crucible(['tasks', 'import', file, '--format', EVIL]);
    expect(badFormat.code).toBe(2);
    expectTerminalSafe(badFormat, 'tasks import --format');
    expect(badFormat.stderr).toContain(`--format must be one of crucible, humaneval, crucible-repo, swebench, got "${SHOWN}"`);
    fs.appendFileSync(file, fs.readFileSync(file, 'utf8')); // the same task id twice: the error names it
    const dup = await crucible(['tasks', 'import', file, '--suite', 'evil-suite-2']);
    expect(dup.code).toBe(1);
    expectTerminalSafe(dup, 'tasks import (duplicate id)');
    expect(dup.stderr).toContain(`duplicate task id "t${SHOWN}"`);
    const badGroup = await crucible([EVIL]);
    expectTerminalSafe(badGroup, 'unknown group');
    expect(badGroup.stderr).toContain(`unknown command group "${SHOWN}"`);
  });
});
