// Module hooks for node:test (lib/agent/grade), run in node's hooks thread.
//
// - Pinned files: the task's own test files come with the hooks' data (from the grader, never
//   from disk, where only placeholders lie), and every load of one of them gets exactly those bytes. The
//   hooks thread has its own `fs` and module loader, so nothing the code under test patches in
//   the main thread (fs.promises.readFile, Module._extensions…) can change a test file's source
//   on its way in, however it puts things back afterwards.
// - TypeScript (Node 20 cannot load it): `.ts`/`.mts` files get their types stripped by amaro,
//   Node's own TypeScript stripper (what `--experimental-transform-types` runs from Node 22.7),
//   and tsc-style relative imports of `./x.js` resolve to `./x.ts`.
//
// data (module.register's): { pinned: [[absolute path, Uint8Array]], typescript: boolean }. The agent's
// episode sandbox registers these hooks for TypeScript only (ts-register.mjs), with no pins.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const TS = /\.m?ts$/;
const pinned = new Map();
let typescript = true;
let transformSync = null;

export function initialize(data) {
  typescript = data?.typescript ?? true;
  // [absolute path, bytes]: the task's files as the grader holds them (the workspace has placeholders)
  for (const [p, bytes] of data?.pinned ?? []) pinned.set(p, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (typescript) ({ transformSync } = require('./amaro/index.js'));
}

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (typescript && e?.code === 'ERR_MODULE_NOT_FOUND' && /^\.{1,2}\//.test(specifier) && /\.m?js$/.test(specifier)) {
      return next(specifier.replace(/\.(m?)js$/, '.$1ts'), context);
    }
    throw e;
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:')) return next(url, context);
  const path = fileURLToPath(url);
  const ts = typescript && TS.test(path);
  const pin = pinned.get(path);
  if (!ts && pin === undefined) return next(url, context);
  const loaded = await next(url, ts ? { ...context, format: 'module' } : context);
  let source = pin ?? loaded.source;
  if (ts) source = `${transformSync(String(source), { mode: 'transform', sourceMap: false, filename: path }).code}\n//# sourceURL=${url}`;
  return { format: ts ? 'module' : loaded.format, source, shortCircuit: true };
}
