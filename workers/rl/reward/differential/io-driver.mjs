// Reference io driver (differential test only; never part of the harness). Loads the solution
// the way Node itself loads that kind of file (a classic script, require() of a .cjs, import()
// of a .mjs), calls the entry point once per input, awaits what it returns, and writes the
// values, tagged by type, to a results file.
// Usage: node io-driver.mjs JOB.json RESULTS.json
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

const [jobPath, resultsPath] = process.argv.slice(2);
const job = JSON.parse(fs.readFileSync(jobPath, 'utf8'));

function observe(v) {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean': return { t: 'bool', v };
    case 'number': return Number.isFinite(v) ? { t: 'num', v } : { t: 'nonfinite', v: String(v) };
    case 'bigint': return { t: 'bigint', v: v.toString() };
    case 'string': return { t: 'str', v };
    case 'object': {
      if (Array.isArray(v)) return { t: 'list', v: Array.from(v, observe) };
      const proto = Object.getPrototypeOf(v);
      // Plain objects only (querystring.parse gives a null prototype, which is still plain).
      if (proto === Object.prototype || proto === null) {
        return { t: 'obj', v: Object.fromEntries(Object.keys(v).map((k) => [k, observe(v[k])])) };
      }
      return { t: 'other', v: Object.prototype.toString.call(v) };
    }
    default: return { t: 'other', v: typeof v };
  }
}

const errorText = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).slice(0, 300);

/** The entry point: a named export, module.exports = fn / export default fn, or a default object holding it. */
function pick(mod) {
  const candidates = [mod?.[job.entryPoint], mod, mod?.default, mod?.default?.[job.entryPoint]];
  return candidates.find((c) => typeof c === 'function');
}

async function load() {
  if (job.module === 'script') {
    // A classic script: its top-level declarations become bindings of this realm's global scope.
    vm.runInThisContext(fs.readFileSync(job.path, 'utf8'), { filename: job.path });
    return vm.runInThisContext(`typeof ${job.entryPoint} === 'function' ? ${job.entryPoint} : undefined`);
  }
  if (job.module === 'commonjs') return pick(createRequire(import.meta.url)(job.path));
  return pick(await import(pathToFileURL(job.path).href));
}

const finish = (record) => fs.writeFileSync(resultsPath, JSON.stringify(record));

let fn;
try {
  fn = await load();
  if (typeof fn !== 'function') throw new Error(`no function named ${job.entryPoint}`);
} catch (e) {
  finish({ loadError: errorText(e) });
  process.exit(0);
}
const results = [];
for (const args of job.inputs) {
  try {
    results.push({ value: observe(await fn(...args)) });
  } catch (e) {
    results.push({ error: errorText(e) });
  }
}
finish({ results });
// Timers or handles the solution left behind must not keep the process alive.
process.exit(0);
