// TypeScript under node:test on Node 20 (workers/agent/grade): module hooks that strip types
// with amaro, Node's own TypeScript stripper (what `node --experimental-transform-types` runs
// from Node 22.7), so a task's `.ts`/`.mts` tests and sources load as ES modules. The grader
// puts this file and amaro's dist into the grading sandbox next to the reporter, outside the
// workspace, and registers it after the reporter (ts-register.mjs).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { transformSync } = require('./amaro/index.js');
const TS = /\.m?ts$/;

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    // tsc-style relative imports name the emitted file: './x.js' for './x.ts'
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && /^\.{1,2}\//.test(specifier) && /\.m?js$/.test(specifier)) {
      return next(specifier.replace(/\.(m?)js$/, '.$1ts'), context);
    }
    throw e;
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !TS.test(new URL(url).pathname)) return next(url, context);
  const { source } = await next(url, { ...context, format: 'module' });
  const { code } = transformSync(String(source), { mode: 'transform', sourceMap: false, filename: fileURLToPath(url) });
  return { format: 'module', source: `${code}\n//# sourceURL=${url}`, shortCircuit: true };
}
