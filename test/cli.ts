import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '@/core/settings';

const run = promisify(execFile);

/**
 * Run the real `crucible` binary (scripts/crucible.mjs) with `env` over this process's, from
 * `cwd` (default: the repository root, where the tests run); never throws on a nonzero exit.
 */
export async function runCrucible(
  args: string[],
  env: Record<string, string>,
  o: { cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [path.resolve('scripts/crucible.mjs'), ...args], { env: childEnv(env), timeout: 60_000, cwd: o.cwd });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
