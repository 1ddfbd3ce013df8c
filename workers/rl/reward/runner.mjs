// Crucible reward harness, JavaScript side. Runs INSIDE the sandbox, next to untrusted code.
// It never sees expected values: it calls the candidate in a separate vm context (so a
// synchronous infinite loop is interrupted by the per-test timeout) and reports what came
// back, serialised by walking the value itself: toJSON/valueOf/toString tricks are not
// consulted. The host compares. Results go to a private copy of stdout, one marked line each.
import fs from 'node:fs';
import vm from 'node:vm';

const job = JSON.parse(fs.readFileSync(0, 'utf8'));
// The candidate has no handle on fd 1: it runs in a vm context without process or fs.
const emit = (rec) => fs.writeSync(1, job.marker + JSON.stringify(rec) + '\n');

// Nothing from this realm is handed to the candidate (its constructors would lead back to
// `process`); even its console is made inside the context, and swallows output.
const context = vm.createContext({});
vm.runInContext('globalThis.console = { log() {}, error() {}, warn() {}, info() {}, debug() {} };', context);
const protos = new Set([Object.prototype, vm.runInContext('Object.prototype', context)]);
const isArray = Array.isArray;

function typed(v, depth = 0) {
  if (depth > 50) throw new TypeError('value nested too deeply');
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean': return { t: 'bool', v };
    case 'number': return Number.isFinite(v) ? { t: 'num', v } : { t: 'float', v: String(v) };
    case 'bigint': return { t: 'bigint', v: v.toString() };
    case 'string': return { t: 'str', v };
    case 'object': {
      if (isArray(v)) {
        const n = v.length;
        const items = [];
        for (let i = 0; i < n; i++) items.push(typed(v[i], depth + 1));
        return { t: 'list', v: items };
      }
      if (!protos.has(Object.getPrototypeOf(v))) throw new TypeError('returned an object that is not a plain object');
      const o = {};
      for (const k of Object.keys(v)) o[k] = typed(v[k], depth + 1);
      return { t: 'obj', v: o };
    }
    default: throw new TypeError(`returned a ${typeof v}, not a plain value`);
  }
}

const short = (e) => {
  const m = e && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
  return /Script execution timed out/.test(m) ? 'timeout' : m.slice(0, 500);
};

function style(source) {
  // Syntax check plus a few lint rules a reviewer would flag; names match runner.py.
  try {
    new vm.Script(source, { filename: 'solution.js' });
  } catch (e) {
    return { syntaxOk: false, issues: [`syntax error: ${short(e)}`] };
  }
  const lines = source.split('\n');
  const code = source.replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""').replace(/\/\/.*$/gm, '');
  const issues = [];
  if (lines.some((l) => l.length > 100)) issues.push('line longer than 100 characters');
  if (lines.some((l) => l !== l.trimEnd())) issues.push('trailing whitespace');
  if (lines.some((l) => /^\t/.test(l))) issues.push('tab indentation');
  if (/(^|[^=!<>])==($|[^=])|!=($|[^=])/m.test(code)) issues.push('loose equality (== or !=)');
  if (/\bvar\s/.test(code)) issues.push('var declaration');
  if (/\b(eval|Function)\s*\(/.test(code)) issues.push('uses eval/Function');
  return { syntaxOk: true, issues };
}

const timeout = job.testTimeoutMs;
emit({ style: style(job.source) });
try {
  vm.runInContext(job.source, context, { filename: 'solution.js', timeout });
  const ok = vm.runInContext(`typeof ${job.entryPoint} === 'function'`, context, { timeout });
  if (ok !== true) throw new Error(`no function named ${job.entryPoint}`);
} catch (e) {
  emit({ load_error: short(e) });
  process.reallyExit(0);
}

for (let i = 0; i < job.inputs.length; i++) {
  const call = `${job.entryPoint}(...JSON.parse(${JSON.stringify(JSON.stringify(job.inputs[i]))}))`;
  const t0 = performance.now();
  try {
    const value = vm.runInContext(call, context, { timeout });
    emit({ i, value: typed(value), ms: performance.now() - t0 });
  } catch (e) {
    emit({ i, error: short(e), ms: performance.now() - t0 });
  }
}
emit({ done: true });
process.reallyExit(0);
