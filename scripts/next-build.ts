// Decide whether the production Next build is stale, and run `next build` when it is.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { childEnv, settings } from '@/core/settings';

/** Everything the web bundle is built from. Tests and fixtures do not count. */
const SOURCE_DIRS = ['app', 'components', 'server', 'db', 'lib', 'types', 'public', 'workers'];
const SOURCE_FILES = ['next.config.mjs', 'package.json', 'package-lock.json', 'postcss.config.mjs', 'tsconfig.json'];
const SKIP = /(^|\/)(node_modules|fixtures|\.next)(\/|$)|\.test\.tsx?$/;

export const nextBin = () => createRequire(import.meta.url).resolve('next/dist/bin/next');
/** CRUCIBLE_NEXT_DIST under `root` (next.config.mjs reads the same variable for Next itself). */
export const nextDistDir = (root: string) => path.resolve(root, settings().CRUCIBLE_NEXT_DIST);

function newestMtime(root: string): number {
  let newest = 0;
  const visit = (p: string) => {
    const rel = path.relative(root, p);
    if (SKIP.test(rel)) return;
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const d of [...SOURCE_DIRS, ...SOURCE_FILES]) visit(path.join(root, d));
  return newest;
}

/** Why a build is needed, or null when `<dist>/BUILD_ID` is newer than every source. */
export function buildNeeded(root: string): string | null {
  const id = path.join(nextDistDir(root), 'BUILD_ID');
  if (!fs.existsSync(id)) return 'no build yet';
  return newestMtime(root) > fs.statSync(id).mtimeMs ? 'sources changed since the last build' : null;
}

/** `next build` in the foreground (its output goes to the console); `signal` cancels it. */
export async function buildNext(root: string, signal?: AbortSignal): Promise<void> {
  const child = spawn(process.execPath, [nextBin(), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: childEnv({ NEXT_TELEMETRY_DISABLED: '1' }),
    signal,
    killSignal: 'SIGTERM',
  });
  const code = await new Promise<number | string>((resolve) => {
    child.once('error', () => {}); // an abort also emits 'error'; 'close' follows
    child.once('close', (c, sig) => resolve(c ?? sig ?? 'unknown'));
  });
  if (signal?.aborted) throw new Error('build cancelled');
  if (code !== 0) throw new Error(`next build failed (exit ${code}); fix the errors above and run npm start again`);
}
