// Crucible's node:test reporter for grading repository tasks (lib/agent/grade).
//
// Loaded twice under one URL, so one module instance: first with `--import` (before any
// workspace code): it reads the one-line JSON job (with the report key) from stdin, creates
// the report file (exclusive) outside the workspace, captures every function it will use and
// snapshots node:test, node:assert, the stream machinery and the JS intrinsics; then node
// loads it again as the `--test-reporter`, and its default export receives the runner's
// events. At every event and at the end it checks the snapshot; then it writes ONE report: a
// JSON document (serialised by hand: no toJSON or prototype method is consulted) and its
// HMAC-SHA256 under the key, which lives only in this module's scope.
//
// The key never exists as a JavaScript value: the job is read into one buffer outside the JS
// heap, the key's hex is decoded from it byte by byte into another, both are zeroed once the
// HMAC holds the key, and only the rest of the job is parsed. So neither a V8 heap snapshot
// (node:v8) nor a scan of this process's memory for the job's text finds it. The inspector,
// which could read this module's scope, is closed by the permission model the grader runs
// node under (grade-repo-task.ts: --experimental-permission).
import { createHmac } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

function fileURLToPathEarly(u) {
  return decodeURIComponent(new URL(u).pathname);
}

function readJob() {
  // all of stdin: the job line, then the task's files (grade-repo-task.ts, task-code.ts)
  let raw = Buffer.alloc(1 << 16);
  let n = 0;
  for (;;) {
    if (n === raw.length) {
      const more = Buffer.alloc(raw.length * 2);
      raw.copy(more, 0, 0, n);
      raw.fill(0);
      raw = more;
    }
    const got = readSync(0, raw, n, raw.length - n, null);
    if (got === 0) break;
    n += got;
  }
  const at = raw.indexOf('"key":"') + 7;
  if (at < 7 || raw[at + 64] !== 34) throw new Error('crucible reporter: the job has no key');
  const key = Buffer.alloc(32);
  const nib = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1);
  for (let i = 0; i < 32; i++) {
    const hi = nib(raw[at + 2 * i]);
    const lo = nib(raw[at + 2 * i + 1]);
    if (hi < 0 || lo < 0) throw new Error('crucible reporter: the key is not hex');
    key[i] = hi * 16 + lo;
  }
  raw.fill(48, at, at + 64);
  const end = raw.indexOf(10);
  const parsed = JSON.parse(raw.toString('utf8', 0, end === -1 ? n : end));
  // the task's files: paths become strings, their bytes stay in buffers (never a JS string the
  // code under test could find in this heap) and go to the hooks thread, then are zeroed here
  const files = [];
  let at2 = end === -1 ? n : end + 1;
  while (at2 + 4 <= n) {
    const nameLen = raw.readUInt32BE(at2);
    const name = raw.toString('utf8', at2 + 4, at2 + 4 + nameLen);
    const len = raw.readUInt32BE(at2 + 4 + nameLen);
    const start = at2 + 8 + nameLen;
    const bytes = new Uint8Array(len);
    bytes.set(raw.subarray(start, start + len));
    files.push([name, bytes]);
    at2 = start + len;
  }
  raw.fill(0);
  return {
    job: { nonce: parsed.nonce, report: parsed.report, workspace: parsed.workspace, taskFiles: parsed.taskFiles, typescript: parsed.typescript === true },
    files,
    key,
  };
}
const { job, files: taskSources, key } = readJob();
// A test's own child node (child_process.fork passes process.execArgv) must not load this
// reporter again: it would wait for a job on its stdin and die. Children keep the permission
// flags (they are no way into this process) and lose only the grader's own.
{
  const self = fileURLToPathEarly(import.meta.url);
  const dirOf = self.slice(0, self.lastIndexOf('/') + 1);
  process.execArgv = process.execArgv.filter((a) => !a.includes(dirOf) && !a.startsWith('--test-reporter'));
}
try {
  closeSync(0);
} catch {
  /* already closed */
}
const require = createRequire(import.meta.url);
const R = { apply: Reflect.apply, ownKeys: Reflect.ownKeys, desc: Reflect.getOwnPropertyDescriptor, getProto: Reflect.getPrototypeOf, is: Object.is };
const reportFd = openSync(job.report, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o600);
const write = writeSync;
const str = JSON.stringify; // only ever called on primitive strings (no toJSON lookup)
const relative = path.relative;
// the report's bytes come from an encoder captured now (Buffer.from looks methods up on
// Buffer.prototype as it runs: a patched utf8Write could rewrite what gets signed)
const encoder = new TextEncoder();
const encode = TextEncoder.prototype.encode;
const fileURLToPath = require('node:url').fileURLToPath;
const hmacObj = createHmac('sha256', key);
key.fill(0);
const hmacUpdate = R.getProto(hmacObj).update;
const hmacDigest = R.getProto(hmacObj).digest;
const asyncIterator = Symbol.asyncIterator;
const startsWith = String.prototype.startsWith;
const strSlice = String.prototype.slice;
const asyncGenProto = R.getProto(R.getProto((async function* () {})()));
const asyncGenNext = asyncGenProto.next;
const arrayIncludes = Array.prototype.includes;
const tampered = [];
// layer 4: what could be tampering or honest code; holds the grade for review (not a 0)
const suspect = [];

// Module loader hooks registered by the code under test would run for every module loaded
// after it, a later test file included, and could hand back any source for it: registering
// hooks is refused (the grader's own TypeScript hooks are registered before this module).
// The CommonJS loader (Module._load, _compile, _extensions…) is watched below.
const Module = require('node:module');
// the grader's own hooks first, with the task's files: they serve those bytes for the task's
// file names (the workspace holds placeholders) and strip TypeScript's types
Module.register('./grader-hooks.mjs', import.meta.url, {
  data: { typescript: job.typescript, pinned: taskSources },
  transferList: taskSources.map((f) => f[1].buffer),
});
taskSources.length = 0;
Module.register = function register() {
  if (tampered.length < 20) tampered[tampered.length] = 'module.register (loader hooks) called by the code under test';
  throw new Error('crucible grader: registering module loader hooks is not allowed while grading');
};

// Each test is an AsyncResource (node:internal/test_runner/test's Test, Suite, TestHook): the
// code under test holding one could mark a failed test as passed, or push forged events on
// the runner's reporter stream. async_hooks is how it would get one (the resource running
// now, a hook's init, `this` in AsyncResource's methods): it hands out a stand-in instead.
// (node:test is loaded first: its harness takes the real createHook to track which test is
// running, and needs the real resources)
const nodeTest = require('node:test');
const asyncHooks = require('node:async_hooks');
const AsyncResource = asyncHooks.AsyncResource;
const realResource = asyncHooks.executionAsyncResource;
const realCreateHook = asyncHooks.createHook;
const WeakMapCtor = WeakMap;
const wmGet = WeakMap.prototype.get;
const wmSet = WeakMap.prototype.set;
const standIns = new WeakMapCtor();
function isRunnerObject(o) {
  if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return false;
  for (let p = R.getProto(o), depth = 0; p !== null && depth < 8; p = R.getProto(p), depth++) {
    const d = R.desc(p, 'constructor');
    const c = d && 'value' in d ? d.value : undefined;
    const n = typeof c === 'function' ? R.desc(c, 'name') : undefined;
    const name = n && 'value' in n ? n.value : undefined;
    if (name === 'Test' || name === 'Suite' || name === 'TestHook') return true;
  }
  return false;
}
function hide(o) {
  if (!isRunnerObject(o)) return o;
  let s = R.apply(wmGet, standIns, [o]);
  if (s === undefined) {
    s = {};
    R.apply(wmSet, standIns, [o, s]);
  }
  return s;
}
asyncHooks.executionAsyncResource = function executionAsyncResource() {
  return hide(realResource());
};
asyncHooks.createHook = function createHook(callbacks) {
  const init = callbacks === null || callbacks === undefined ? undefined : callbacks.init;
  if (typeof init !== 'function') return realCreateHook(callbacks);
  const fns = {
    init(asyncId, type, triggerAsyncId, resource) {
      return R.apply(init, this, [asyncId, type, triggerAsyncId, hide(resource)]);
    },
  };
  for (const k of ['before', 'after', 'destroy', 'promiseResolve']) if (callbacks[k] !== undefined) fns[k] = callbacks[k];
  return realCreateHook(fns);
};
Module.syncBuiltinESMExports();

// Layer 2: node:assert's loose equal/notEqual compare an object with a primitive through the
// object's own valueOf / toString / Symbol.toPrimitive, which the code under test writes: a
// value "equal" to whatever it is compared with. Such a comparison still runs as written (a
// test may mean it), and holds the grade for review. (deepEqual and the strict forms never
// convert an object to a primitive.)
{
  const looseAssert = require('node:assert');
  const isObj = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');
  for (const name of ['equal', 'notEqual']) {
    const real = looseAssert[name];
    const checked = {
      [name](actual, expected, message) {
        if (isObj(actual) !== isObj(expected) && suspect.length < 20) {
          const why = `assert.${name} compared an object with a primitive (the object's own conversion decided it)`;
          if (!R.apply(arrayIncludes, suspect, [why])) suspect[suspect.length] = why;
        }
        return R.apply(real, this, [actual, expected, message]);
      },
    }[name];
    looseAssert[name] = checked;
  }
}

// What the verdict's path runs through (the stream machinery, intrinsics its code calls,
// node:test and node:assert) cannot be replaced, not even for a moment: every function-valued
// property becomes a getter of the original with a setter that refuses on the object itself
// (and, so that `Foo.prototype.toString = …` keeps working, defines an own property on any
// object that inherits it). A check at each event could not see a patch put back in between.
const defineProperty = Object.defineProperty;
const preventExtensions = Object.preventExtensions;
function lock(obj, label, only) {
  const keys = only ?? R.ownKeys(obj);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const d = R.desc(obj, k);
    if (k === 'constructor' || !d || !d.configurable || !('value' in d) || typeof d.value !== 'function') continue;
    const value = d.value;
    const name = `${label}.${typeof k === 'symbol' ? k.description : k}`;
    defineProperty(obj, k, {
      configurable: false,
      enumerable: d.enumerable,
      get() {
        return value;
      },
      set(v) {
        if (this === obj) {
          if (tampered.length < 20) tampered[tampered.length] = `replacing ${name}`;
          throw new TypeError(`crucible grader: ${name} cannot be replaced while grading`);
        }
        if (this !== null && (typeof this === 'object' || typeof this === 'function'))
          defineProperty(this, k, { value: v, writable: true, enumerable: true, configurable: true });
      },
    });
  }
}
const stream = require('node:stream');
// the iterators `for…of` runs on (the reporter's own loops over its results included)
const arrayIterator = R.getProto([][Symbol.iterator]());
const ITERATORS = {
  'ArrayIterator.prototype': arrayIterator,
  'Iterator.prototype': R.getProto(arrayIterator),
  'MapIterator.prototype': R.getProto(new Map().entries()),
  'SetIterator.prototype': R.getProto(new Set().values()),
  'StringIterator.prototype': R.getProto(''[Symbol.iterator]()),
  'AsyncGenerator.prototype': asyncGenProto,
  'AsyncIterator.prototype': R.getProto(asyncGenProto),
};
const LOCKED = {
  'node:test': nodeTest,
  'node:assert': require('node:assert'),
  'node:assert/strict': require('node:assert/strict'),
  'node:async_hooks': asyncHooks,
  'AsyncResource.prototype': AsyncResource.prototype,
  'Readable.prototype': stream.Readable.prototype,
  'Writable.prototype': stream.Writable.prototype,
  'Duplex.prototype': stream.Duplex.prototype,
  'Transform.prototype': stream.Transform.prototype,
  'EventEmitter.prototype': require('node:events').prototype,
  'Object.prototype': Object.prototype,
  'Array.prototype': Array.prototype,
  'Function.prototype': Function.prototype,
  'Promise.prototype': Promise.prototype,
  'String.prototype': String.prototype,
  'Map.prototype': Map.prototype,
  'Set.prototype': Set.prototype,
  'WeakMap.prototype': WeakMap.prototype,
  'Buffer.prototype': Buffer.prototype,
  'TextEncoder.prototype': TextEncoder.prototype,
  ...ITERATORS,
  Object,
  Promise,
  Reflect,
  JSON,
};
// the stream machinery defers through process.nextTick
lock(process, 'process', ['nextTick', 'exit', 'reallyExit']);
for (const label of R.ownKeys(LOCKED)) lock(LOCKED[label], label);
preventExtensions(AsyncResource.prototype);
// A getter added to either prototype sees `this` for every object that reads a missing
// property: node reads a promise's async id that way, and a getter answering with a test's
// id made a later test file's tests that test's children (their ids changed, fakes took the
// real ones'). Code under test may not add to them.
preventExtensions(Object.prototype);
preventExtensions(Promise.prototype);
Module.syncBuiltinESMExports();

const WATCHED = {
  'node:test': require('node:test'),
  'node:assert': require('node:assert'),
  'node:assert/strict': require('node:assert/strict'),
  'node:stream': require('node:stream'),
  'node:stream.Readable.prototype': require('node:stream').Readable.prototype,
  'node:module': Module,
  'node:module.prototype': Module.prototype,
  'node:module._extensions': Module._extensions,
  'Hmac.prototype': R.getProto(hmacObj),
  AsyncGenerator: asyncGenProto,
  Object,
  'Object.prototype': Object.prototype,
  'Array.prototype': Array.prototype,
  'String.prototype': String.prototype,
  'Function.prototype': Function.prototype,
  'Promise.prototype': Promise.prototype,
  'Map.prototype': Map.prototype,
  'Set.prototype': Set.prototype,
  'WeakMap.prototype': WeakMap.prototype,
  'node:async_hooks': asyncHooks,
  'AsyncResource.prototype': AsyncResource.prototype,
  'EventEmitter.prototype': require('node:events').prototype,
  'Buffer.prototype': Buffer.prototype,
  'TextEncoder.prototype': TextEncoder.prototype,
  ...ITERATORS,
  Promise,
  JSON,
  Reflect,
  Symbol,
  'globalThis.process': process,
};
// Modules honest tests mock for the length of a test (t.mock.method(fs, 'readFileSync')): the
// verdict does not use them (the reporter captured what it needs, the grader's hooks thread
// reads the task's files), so they only have to be back as they were when the run ends.
const END_WATCHED = {
  'node:fs': require('node:fs'),
  'node:path': require('node:path'),
  'node:crypto': require('node:crypto'),
};
function describeAll(watched = WATCHED) {
  const out = new Map();
  const KEYS = R.ownKeys(watched);
  for (let i = 0; i < KEYS.length; i++) {
    const name = KEYS[i];
    const obj = watched[name];
    const walk = (o, prefix, depth) => {
      const keys = R.ownKeys(o);
      for (let j = 0; j < keys.length; j++) {
        const k = keys[j];
        const d = R.desc(o, k);
        const label = `${prefix}.${typeof k === 'symbol' ? k.description : k}`;
        if (name === 'globalThis.process' && !(k === 'exit' || k === 'reallyExit' || k === 'binding')) continue;
        out.set(label, d && ('value' in d ? d.value : d.get));
        if (depth < 1 && name.startsWith('node:') && d && 'value' in d && typeof d.value === 'function' && k !== 'prototype' && k !== 'constructor')
          walk(d.value, label, depth + 1);
      }
    };
    walk(obj, name, 0);
  }
  return out;
}
const snapshot = describeAll();
const endSnapshot = describeAll(END_WATCHED);
function check(before = snapshot, watched = WATCHED) {
  const now = describeAll(watched);
  for (const [label, value] of before) if (!R.is(now.get(label), value) && tampered.length < 20) tampered[tampered.length] = `changed: ${label}`;
  for (const label of now.keys()) if (!before.has(label) && tampered.length < 20) tampered[tampered.length] = `added: ${label}`;
}
let used = false;

// The test files, loaded here (entry.mjs calls this once, before any workspace code has run):
// a test counts only if its file finished loading. A file that fails to load, e.g. because
// the solution broke an import, or never finishes, has all its tests failed, including any
// test the solution registered that claims to be from it (node:test takes a test's file from
// its caller's location, which `//# sourceURL=` in eval'd code sets).
const failedFiles = new Set();
// …and only a file whose import finished counts (one that never settles, e.g. behind a
// top-level await in the solution that never resolves, has no results of its own)
const loadedFiles = new Set();
const setAdd = Set.prototype.add;
const setHas = Set.prototype.has;
const taskFiles = new Set();
if (Array.isArray(job.taskFiles)) for (let i = 0; i < job.taskFiles.length; i++) R.apply(setAdd, taskFiles, [`${job.taskFiles[i]}`]);
let loading = false;
export async function loadTestFiles(urls) {
  if (loading) {
    if (tampered.length < 20) tampered[tampered.length] = 'the test files were loaded twice';
    return;
  }
  loading = true;
  const list = [];
  for (let i = 0; i < urls.length; i++) list[i] = `${urls[i]}`;
  for (let i = 0; i < list.length; i++) {
    const u = list[i];
    try {
      await import(u);
      R.apply(setAdd, loadedFiles, [relative(job.workspace, fileURLToPath(u))]);
    } catch (e) {
      R.apply(setAdd, failedFiles, [relative(job.workspace, fileURLToPath(u))]);
      write(2, `crucible: cannot load ${u}: ${(e && e.stack) || e}\n`);
    }
  }
}

process.stdout.write(`CRUCIBLE-GRADE-READY ${job.nonce}\n`);

export default async function* crucibleReporter(source) {
  // a second consumer (workspace code calling this export) is tampering; the report says so
  if (used) tampered[tampered.length] = 'the reporter was invoked twice';
  used = true;
  const results = new Map();
  const resultFiles = new Map();
  const stack = [];
  // each open test's file: a task file's test must sit under the task's own tests only (one
  // under a test the solution made has had its id changed, and something else may hold it)
  const files = [];
  // node's own count of passed tests (its summary, from the tests' state, not from events):
  // a test:fail turned into test:pass on the way here makes the two disagree
  let passes = 0;
  let summaryPasses = null;
  // an async generator (what node hands a reporter): its own next, captured before any workspace code
  const isGen = R.getProto(R.getProto(source)) === asyncGenProto;
  const it = isGen ? source : R.apply(source[asyncIterator], source, []);
  const next = isGen ? asyncGenNext : it.next;
  for (;;) {
    const step = await R.apply(next, it, []);
    if (step.done) break;
    check();
    const ev = step.value;
    const data = ev.data ?? {};
    if (ev.type === 'test:diagnostic' && data.nesting === 0 && typeof data.message === 'string' && R.apply(startsWith, data.message, ['pass '])) {
      summaryPasses = R.apply(strSlice, data.message, [5]);
      continue;
    }
    const file = typeof data.file === 'string' ? relative(job.workspace, data.file) : '?';
    if (ev.type === 'test:start') {
      stack.length = data.nesting;
      stack[data.nesting] = data.name;
      files.length = data.nesting;
      files[data.nesting] = file;
      continue;
    }
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    stack.length = data.nesting;
    files.length = data.nesting;
    let name = '';
    let adopted = false;
    for (let i = 0; i < data.nesting; i++) {
      name += `${stack[i]} > `;
      if (!R.apply(setHas, taskFiles, [files[i]])) adopted = true;
    }
    name += data.name;
    const id = `${file}::${name}`;
    if (adopted && R.apply(setHas, taskFiles, [file])) {
      if (tampered.length < 20) tampered[tampered.length] = `a test of ${file} ran under a test that is not the task's: ${name}`;
    }
    const outcome = ev.type === 'test:fail' ? 'failed' : data.skip !== undefined || data.todo !== undefined ? 'skipped' : 'passed';
    // node's count is of pass events, whatever this reporter makes of them
    if (ev.type === 'test:pass' && data.skip === undefined && data.todo === undefined && !(data.details && data.details.type === 'suite')) passes++;
    const prev = results.get(id);
    results.set(id, prev === undefined || prev === 'passed' ? outcome : prev);
    resultFiles.set(id, file);
  }
  check();
  check(endSnapshot, END_WATCHED);
  if (summaryPasses === null) tampered[tampered.length] = 'the test run ended without node:test’s summary';
  else if (summaryPasses !== `${passes}`) tampered[tampered.length] = `${passes} tests were reported passed but node:test counted ${summaryPasses}`;
  let doc = `{"exitstatus":0,"nonce":${str(String(job.nonce))},"results":{`;
  let first = true;
  for (const [id, reported] of results) {
    // only now: a file's import can fail after tests claiming to be from it have passed
    const outcome = R.apply(setHas, loadedFiles, [resultFiles.get(id)]) ? reported : 'failed';
    doc += `${first ? '' : ','}${str(id)}:${str(outcome)}`;
    first = false;
  }
  doc += '},"tampered":[';
  for (let i = 0; i < tampered.length; i++) doc += `${i ? ',' : ''}${str(tampered[i])}`;
  doc += '],"suspect":[';
  for (let i = 0; i < suspect.length; i++) doc += `${i ? ',' : ''}${str(suspect[i])}`;
  doc += ']}';
  const body = R.apply(encode, encoder, [doc]);
  R.apply(hmacUpdate, hmacObj, [body]);
  const mac = R.apply(hmacDigest, hmacObj, ['hex']);
  write(reportFd, R.apply(encode, encoder, [`${doc}\n${mac}\n`]));
}
