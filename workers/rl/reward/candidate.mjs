// Crucible reward harness, CANDIDATE side (JavaScript). Loads the untrusted module as Node
// would (a plain script's function declarations, CommonJS, or ESM, with Node's built-ins
// through require/import) and answers the trusted side's requests (fd 3 in, fd 4 out, one
// JSON line each). It holds nothing worth stealing: no marker, no expected values, no
// check code; whatever the candidate does here can only change the values it reports.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [srcPath, entryPoint] = process.argv.slice(2);
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const send = (rec) => writeSync(4, stringify(rec) + '\n');
const ENTRY = Symbol.for('crucible.entry');
const isArray = Array.isArray;
const getProto = Object.getPrototypeOf;
const keys = Object.keys;
const OBJECT_PROTO = Object.prototype;

function toWire(v, depth = 0) {
  if (depth > 100) throw new TypeError('value nested too deeply');
  if (v === null || v === undefined) return ['n'];
  switch (typeof v) {
    case 'boolean': return ['b', v];
    case 'number': return Number.isSafeInteger(v) ? ['i', String(v)] : ['f', Number.isFinite(v) ? v : String(v).replace('Infinity', 'inf').replace('NaN', 'nan')];
    case 'bigint': return ['i', v.toString()];
    case 'string': return ['s', v];
    case 'object': {
      if (isArray(v)) {
        const n = v.length;
        const items = [];
        for (let i = 0; i < n; i++) items.push(toWire(v[i], depth + 1));
        return ['l', items];
      }
      const proto = getProto(v);
      if (proto !== OBJECT_PROTO && proto !== null) throw new TypeError(`returned a ${v.constructor?.name ?? 'object'}, not a plain object`);
      return ['d', keys(v).map((k) => [['s', k], toWire(v[k], depth + 1)])];
    }
    default: throw new TypeError(`returned a ${typeof v}, not a plain value`);
  }
}

function fromWire(w) {
  const [tag, v] = w;
  switch (tag) {
    case 'n': return null;
    case 'b': return v;
    // Arguments come from the task's JSON, which Node reads as Numbers (JSON.parse): a big
    // integral literal stays a Number here too, never a BigInt that `x + 1` would throw on.
    case 'i': return Number(v);
    case 'f': return typeof v === 'number' ? v : v === 'nan' ? NaN : v === 'inf' ? Infinity : -Infinity;
    case 's': return v;
    case 'l': case 't': return v.map(fromWire);
    case 'S': case 'F': return new Set(v.map(fromWire));
    case 'd': return Object.fromEntries(v.map(([k, x]) => [String(fromWire(k)), fromWire(x)]));
    default: throw new TypeError(`unknown value tag ${tag}`);
  }
}

const describe = (e) => {
  if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
    let name = 'Error';
    let message = '';
    try { name = String(e.name ?? 'Error'); message = String(e.message ?? ''); } catch { /* a hostile getter */ }
    return { type: name, message: message.slice(0, 400) };
  }
  return { type: 'Error', message: `threw ${typeof e === 'string' ? e : String(e)}`.slice(0, 400) };
};

/** ESM or not, decided as Node's own module detection does: does it parse as CommonJS? */
function isModuleSyntax(source) {
  // A leading hashbang is legal in both kinds of file, but not inside the wrapper below: it
  // would hide the module syntax after it (same length, so line numbers stay).
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  try {
    new vm.Script(`(function (exports, require, module, __filename, __dirname) {${body}\n})`);
    return false;
  } catch (e) {
    // Node also retries as ESM when a top-level declaration of a CommonJS-only name
    // (`const __filename = fileURLToPath(import.meta.url)`) is what fails to parse as CommonJS.
    return e instanceof SyntaxError && /import statement outside a module|Unexpected token 'export'|import\.meta|await is only valid|Cannot use import|Identifier '(?:module|exports|require|__filename|__dirname)' has already been declared/.test(e.message);
  }
}

let fn;
async function load() {
  const source = fs.readFileSync(srcPath, 'utf8');
  // A top-level declaration of the entry point (plain script style) is module-scoped in
  // both CommonJS and ESM; this line, appended, hands it over without changing the program.
  const capture = `\n;globalThis[Symbol.for('crucible.entry')] = typeof ${entryPoint} === 'undefined' ? undefined : ${entryPoint};\n`;
  const dir = path.dirname(srcPath);
  let exported;
  if (isModuleSyntax(source)) {
    const file = path.join(dir, 'solution.mjs');
    fs.writeFileSync(file, source + capture);
    exported = await import(pathToFileURL(file).href);
  } else {
    const file = path.join(dir, 'solution.cjs');
    fs.writeFileSync(file, source + capture);
    exported = createRequire(file)(file);
  }
  const declared = globalThis[ENTRY];
  const pick = [exported?.[entryPoint], declared, exported?.default?.[entryPoint], exported?.default, exported];
  fn = pick.find((f) => typeof f === 'function');
  return fn ? [entryPoint] : [];
}

// A libuv pipe, not fs.createReadStream: a threadpool read blocked on fd 3 would hold up process.exit().
const rl = readline.createInterface({ input: new net.Socket({ fd: 3, readable: true, writable: false }), crlfDelay: Infinity });
for await (const line of rl) {
  let msg;
  try { msg = JSON.parse(line); } catch { continue; }
  const id = msg.id;
  if (msg.op === 'load') {
    try {
      send({ id, ok: true, callables: await load() });
    } catch (e) {
      send({ id, load_error: describe(e) });
    }
  } else if (msg.op === 'call') {
    let value;
    try {
      const args = msg.args.map(fromWire);
      value = fn(...args);
      if (value !== null && typeof value === 'object' && typeof value.then === 'function') value = await value; // async functions are awaited
    } catch (e) {
      send({ id, error: describe(e) });
      continue;
    }
    let wire;
    try { wire = toWire(value); } catch (e) { wire = ['u', describe(e).message]; }
    send({ id, value: wire });
  }
}
