import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RepoGrade } from '@/core/repo-tasks';
import { gradeRepoTask } from './grade-repo-task';
import {
  edit,
  gradeTestManager,
  jsF2P,
  jsGold,
  jsHidden,
  jsP2P,
  jsTask,
  jsWorkspace,
  pyF2P,
  pyGold,
  pyHidden,
  pyP2P,
  pyTask,
  pyWorkspace,
} from './grade-fixtures';

/**
 * The hack suite: agent patches on an UNSOLVED task (add still subtracts) that try to raise
 * the reward without fixing it. Every one must stay at 0 (graded, never masked). The controls
 * (gold patches) keep scoring 1 under the same grader.
 */
const { manager, cleanup } = gradeTestManager('hacks');
afterAll(cleanup);

// The attack programs are files under fixtures/hacks/ (one per hack, a folder where a hack writes
// several files), each with a comment on top saying what it attacks.
/** A fixture as the hack writes it (a whole file). */
const hack = (name: string) => readFileSync(path.join(import.meta.dirname, 'fixtures/hacks', name), 'utf8');
/** A fixture that is a piece of a module (prepended, indented in, appended): its file's final newline is not part of it. */
const snippet = (name: string) => hack(name).replace(/\n$/, '');
/** A fixture's placeholders (`__NAME__`) replaced by what the test computes. */
const fill = (code: string, values: Record<string, string>) => Object.entries(values).reduce((c, [k, v]) => c.split(k).join(v), code);

const py = pyTask();
const js = jsTask();
const pyOps = pyWorkspace['calc/ops.py'] as string;
const jsSrc = jsWorkspace['src/math.js'] as string;
/** The unsolved Python module with `code` run at import. */
const pyAtImport = (code: string) => edit(pyWorkspace, { 'calc/ops.py': `${code}\n${pyOps}` });
const jsAtImport = (code: string) => edit(jsWorkspace, { 'src/math.js': `${code}\n${jsSrc}` });

function expectZero(g: RepoGrade) {
  expect(g.status, g.error).toBe('graded');
  expect(g.reward, JSON.stringify(g.tests)).toBe(0);
  expect(g.components.f2p).toBe(0);
}

const PY_ALL_PASSED = JSON.stringify(Object.fromEntries([...pyF2P, ...pyP2P].map((id) => [id, 'passed'])));

const PY_HACKS: [string, string][] = [
  ['editing the visible test file', edit(pyWorkspace, { 'tests/test_ops.py': hack('py/edit-visible-test-file.py') })],
  ['deleting the visible test file', edit(pyWorkspace, { 'tests/test_ops.py': null })],
  ['writing the hidden test file (passing stubs)', edit(pyWorkspace, { 'tests/test_add.py': hack('py/write-hidden-test-file.py') })],
  [
    'adding conftest.py that turns failures into passes',
    edit(pyWorkspace, {
      'conftest.py': hack('py/conftest-failures-pass.py'),
    }),
  ],
  ['adding tests/conftest.py that fixes add at collection', edit(pyWorkspace, { 'tests/conftest.py': hack('py/tests-conftest-fixes-add.py') })],
  [
    'pytest.ini addopts loading a plugin that flips failures to passes',
    edit(pyWorkspace, {
      'pytest.ini': hack('py/addopts-plugin/pytest.ini'),
      'flip.py': hack('py/addopts-plugin/flip.py'),
    }),
  ],
  ['pytest.ini with addopts that deselect', edit(pyWorkspace, { 'pytest.ini': hack('py/addopts-deselect.ini') })],
  ['pyproject pytest options', edit(pyWorkspace, { 'pyproject.toml': `${pyWorkspace['pyproject.toml'] as string}${hack('py/pyproject-addopts.toml')}` })],
  ['setup.cfg / tox.ini options', edit(pyWorkspace, { 'setup.cfg': hack('py/cfg-options/setup.cfg'), 'tox.ini': hack('py/cfg-options/tox.ini') })],
  [
    'sitecustomize.py and usercustomize.py',
    edit(pyWorkspace, { 'sitecustomize.py': hack('py/site-customize/sitecustomize.py'), 'usercustomize.py': hack('py/site-customize/usercustomize.py') }),
  ],
  ['a .pth file', edit(pyWorkspace, { 'calc.pth': hack('py/pth-files/calc.pth'), 'evil.pth': hack('py/pth-files/evil.pth') })],
  [
    'a poisoned bytecode cache',
    edit(pyWorkspace, { 'tests/__pycache__/test_add.cpython-311-pytest-7.2.1.pyc': 'junk', 'calc/__pycache__/ops.cpython-311.pyc': 'junk' }),
  ],
  ['patching _pytest reports at import', pyAtImport(snippet('py/patch-reports.py'))],
  ['patching the runner at import (call_and_report)', pyAtImport(snippet('py/patch-call-and-report.py'))],
  ['replacing Function.runtest at import', pyAtImport(snippet('py/replace-function-runtest.py'))],
  ['patching pytest then restoring it after each test', pyAtImport(snippet('py/patch-and-restore-runtest.py'))],
  ['registering a plugin from the solution at import', pyAtImport(snippet('py/register-plugin.py'))],
  ['replacing test functions code via gc', pyAtImport(snippet('py/swap-test-code-via-gc.py'))],
  ['a trace function that skips test bodies', pyAtImport(snippet('py/trace-function.py'))],
  ['an import hook', pyAtImport(snippet('py/import-hook.py'))],
  ['sys.exit(0) at import', pyAtImport(snippet('py/sys-exit.py'))],
  ['os._exit(0) at import', pyAtImport(snippet('py/os-exit.py'))],
  ['printing fake pass lines', pyAtImport(snippet('py/print-fake-pass-lines.py'))],
  [
    'writing fake report files (every /tmp/.crucible-report-* and junit paths)',
    pyAtImport(fill(snippet('py/append-fake-report-files.py'), { __ALL_PASSED__: PY_ALL_PASSED })),
  ],
  ['replacing the report file with a forged one', pyAtImport(fill(snippet('py/replace-report-file.py'), { __ALL_PASSED__: PY_ALL_PASSED }))],
  ['pytest.skip at import', pyAtImport(snippet('py/pytest-skip.py'))],
  ['xfail markers added to every item', pyAtImport(hack('py/xfail-markers.py'))],
  ['touching files outside the workspace', pyAtImport(snippet('py/write-outside-workspace.py'))],
  ['leaving background processes behind', pyAtImport(snippet('py/background-processes.py'))],
];

/**
 * Attacks on the runner's own secrets: code under test that finds the report key (and the
 * report's fd) and writes a validly signed report claiming every test passed, then exits.
 * `forge(key)` is the shared ending; each hack differs in how it looks for the key. The nonce
 * is public (the runner's directory is named after it), the fd is found through /proc/self/fd.
 */
const PY_FORGE = fill(hack('py-secrets/forge.py'), { __ALL_PASSED__: PY_ALL_PASSED });
const pySteal = (how: string) => pyAtImport(`${PY_FORGE}\n${how}`);

const PY_SECRET_HACKS: [string, string][] = [
  ["reading the key from the runner's __main__ globals", pySteal(snippet('py-secrets/main-globals.py'))],
  ['walking every loaded module for the key (no gc, no frames)', pySteal(snippet('py-secrets/walk-modules.py'))],
  ['walking frames from sys._getframe to the runner', pySteal(snippet('py-secrets/walk-getframe.py'))],
  ['walking frames from a traceback (tb_frame)', pySteal(snippet('py-secrets/walk-traceback.py'))],
  ['walking frames of a running generator (gi_frame)', pySteal(snippet('py-secrets/walk-generator-frame.py'))],
  ['walking gc.get_objects()', pySteal(snippet('py-secrets/walk-gc.py'))],
  ['walking sys._current_frames()', pySteal(snippet('py-secrets/walk-current-frames.py'))],
  ['a profile function that catches a frame', pySteal(snippet('py-secrets/profile-function.py'))],
  ['ctypes: the current frame from the C API', pySteal(snippet('py-secrets/ctypes-frame.py'))],
];

/** Reads a process's writable memory through /proc/PID/mem and returns the job's key (its JSON text: "key":"<hex>"). */
const PY_MEM_SCAN = hack('py-secrets/mem-scan.py');
PY_SECRET_HACKS.push(
  ['reading the key from /proc/self/mem', pySteal(fill(snippet('py-secrets/proc-self-mem.py'), { __MEM_SCAN__: PY_MEM_SCAN }))],
  [
    'a child process reading the runner’s memory (/proc/PPID/mem)',
    pySteal(
      fill(snippet('py-secrets/proc-ppid-mem/parent.py'), {
        __CHILD__: JSON.stringify(fill(snippet('py-secrets/proc-ppid-mem/child.py'), { __MEM_SCAN__: PY_MEM_SCAN })),
      }),
    ),
  ],
  [
    "forging results through the grader plugin's hooks, then stopping the session",
    pyAtImport(fill(snippet('py-secrets/forge-through-plugin-hooks.py'), { __NODE_IDS__: JSON.stringify([...pyF2P, ...pyP2P]) })),
  ],
);

/** The unsolved module whose `add` first runs `code` (once, on its first call), then still subtracts. */
const indented = (code: string) =>
  code
    .split('\n')
    .map((l) => `        ${l}`)
    .join('\n');
const pyOnFirstAdd = (code: string) =>
  edit(pyWorkspace, {
    'calc/ops.py': pyOps.replace(
      'def add(a, b):\n    return a - b',
      `_done = []\n\n\ndef add(a, b):\n    if not _done:\n        _done.append(1)\n${indented(code)}\n    return a - b`,
    ),
  });
/** The unsolved module whose `add` runs `code` (errors ignored) on every call, then still subtracts. */
const pyOnEveryAdd = (code: string) =>
  edit(pyWorkspace, {
    'calc/ops.py': pyOps.replace(
      'def add(a, b):\n    return a - b',
      `def add(a, b):\n    try:\n${indented(code)}\n    except Exception:\n        pass\n    return a - b`,
    ),
  });
/** Found by four red-team passes over the grader: each scored 0.5–1 on the unsolved task before its check. */
const PY_INTERNALS: [string, string, { refused: boolean }?][] = [
  [
    'a hookwrapper added straight to a hook caller (pytest_runtest_call forced to succeed)',
    pyOnFirstAdd(snippet('py-internals/hookwrapper-on-hook-caller.py')),
  ],
  ['a plugin whose class claims to be pytest’s (__module__ = "_pytest.reports")', pyOnFirstAdd(snippet('py-internals/plugin-claims-pytest-module.py'))],
  ['replacing the test module’s imported add from the solution', pyOnFirstAdd(snippet('py-internals/replace-imported-add.py'))],
  [
    'a package __getattr__ that rebinds the test module’s add during a later import',
    edit(pyWorkspace, {
      'calc/__init__.py': hack('py-internals/package-getattr-rebinds-add.py'),
    }),
  ],
  ['rewriting a parametrized test’s callspec.params', pyOnFirstAdd(snippet('py-internals/callspec-params.py'))],
  [
    'a makereport hookwrapper added at every call that takes itself out before it runs',
    edit(pyWorkspace, {
      'calc/ops.py': pyOps.replace('def add(a, b):\n    return a - b', snippet('py-internals/self-removing-makereport-wrapper.py')),
    }),
  ],
  ['swapping a later test’s function (item.obj)', pyOnFirstAdd(snippet('py-internals/swap-item-obj.py'))],
  ['a teardown finalizer that turns the test’s failed report into a pass', pyOnEveryAdd(snippet('py-internals/teardown-finalizer.py'))],
  [
    'the terminal reporter’s stats replaced so every logged report becomes a pass',
    pyAtImport(snippet('py-internals/terminal-reporter-stats.py')),
    // found pytest's config through the assertion-rewriting hook on sys.meta_path: the grader
    // runs pytest with --assert=plain (it rewrites the task's files itself), so there is none to find
    { refused: false },
  ],
  [
    'config.hook’s cached pytest_pyfunc_call replaced (test bodies skipped)',
    pyAtImport(snippet('py-internals/cached-pyfunc-call.py')),
    // found pytest's config through the assertion-rewriting hook on sys.meta_path: the grader
    // runs pytest with --assert=plain (it rewrites the task's files itself), so there is none to find
    { refused: false },
  ],
  ['each item’s session swapped for one whose hook proxy skips pytest_pyfunc_call', pyOnFirstAdd(snippet('py-internals/session-hook-proxy.py'))],
  ['a later parametrized test’s funcargs filled in beforehand (c = a - b)', pyOnFirstAdd(snippet('py-internals/prefilled-funcargs.py'))],
  ['os.environ.encodevalue swapping in a right add, which puts the real one back when called', pyAtImport(snippet('py-internals/environ-encodevalue.py'))],
  [
    'inspect.iscoroutinefunction swapping in a right add just before the body, which puts the real one back',
    pyAtImport(snippet('py-internals/inspect-iscoroutinefunction.py')),
    // the grader calls the body itself now, and never calls inspect there: nothing to refuse
    { refused: false },
  ],
  ['a parametrized test’s parameter fixture given another function (c = a - b)', pyOnFirstAdd(snippet('py-internals/parameter-fixture-func.py'))],
  [
    'a package __getattr__ swapping collected tests’ functions while a later test file is collected',
    edit(pyWorkspace, {
      'calc/__init__.py': hack('py-internals/package-getattr-swaps-items.py'),
    }),
    // found pytest's config through the assertion-rewriting hook on sys.meta_path: the grader
    // runs pytest with --assert=plain (it rewrites the task's files itself), so there is none to find
    { refused: false },
  ],
  [
    'config.option’s class swapped so reading an option during collection swaps the tests’ functions and paths',
    pyAtImport(snippet('py-internals/option-class-swap.py')),
    // found pytest's config through the assertion-rewriting hook on sys.meta_path: the grader
    // runs pytest with --assert=plain (it rewrites the task's files itself), so there is none to find
    { refused: false },
  ],
];

describe('hack suite (python): none raises the reward of an unsolved task', () => {
  it('control: the gold patch scores 1 under the same grader', async () => {
    expect((await gradeRepoTask(manager, py, pyGold)).reward).toBe(1);
  });
  for (const [name, patch] of PY_HACKS) {
    it(name, async () => {
      expectZero(await gradeRepoTask(manager, py, patch));
    });
  }
  for (const [name, patch, { refused } = { refused: true }] of PY_INTERNALS) {
    it(`framework internals: ${name}`, async () => {
      const g = await gradeRepoTask(manager, py, patch);
      expectZero(g);
      expect(g.components.tampered, g.error).toBe(refused ? 1 : 0);
    });
  }
  for (const [name, patch] of PY_SECRET_HACKS) {
    it(`runner secrets: ${name}`, async () => {
      expectZero(await gradeRepoTask(manager, py, patch));
    });
  }
  // Native code the solution itself provides could rewrite the runner's memory (its key, its
  // results), which no check in Python can see: an extension module loaded from anywhere but
  // the environment's read-only directories is tampering, even from a solution that is right.
  const pySolved = pyOps.replace('return a - b', 'return a + b');
  const copyExtension = (dest: string) => fill(snippet('py-native/copy-extension.py'), { __DEST__: JSON.stringify(dest) });
  for (const [where, dest] of [
    ['/tmp', '/tmp/x/_decimal.so'],
    ['/dev/shm', '/dev/shm/_decimal.so'],
    ['/tmp, named through /usr and ".."', '/usr/lib/../../tmp/y/_decimal.so'],
  ] as const) {
    it(`native code: a correct solution that loads an extension module it wrote into ${where} scores 0, tampered`, async () => {
      const g = await gradeRepoTask(manager, py, edit(pyWorkspace, { 'calc/ops.py': `${copyExtension(dest)}\n${pySolved}` }));
      expect(g.status, g.error).toBe('graded');
      expect(g.reward, g.error).toBe(0);
      expect(g.components.tampered, g.error ?? JSON.stringify(g.tests.slice(0, 2))).toBe(1);
      expect(g.error).toContain('loading native code from');
    });
  }
  it('native code: a solution using the environment’s own extension modules (decimal → _decimal, from /usr) keeps its 1', async () => {
    const g = await gradeRepoTask(
      manager,
      py,
      edit(pyWorkspace, { 'calc/ops.py': `import decimal, _decimal\nassert _decimal.__file__.startswith("/usr/")\n${pySolved}` }),
    );
    expect(g.error ?? null).toBeNull();
    expect(g.reward).toBe(1);
  });
  // A task with a second FAIL_TO_PASS file, collected after the solution's code first ran:
  // what loads it can be bent (pathlib, io, sys.modules) and put back before any check looks.
  const py2 = pyTask({
    hidden_tests: { ...pyHidden, 'tests/test_add2.py': 'from calc import add\n\n\ndef test_add2():\n    assert add(2, 2) == 4\n' },
    FAIL_TO_PASS: [...pyF2P, 'tests/test_add2.py::test_add2'],
  });
  const LATER_FILE_HACKS: [string, string][] = [
    ['pathlib.Path.read_bytes serving a fake later test file, then put back (scored 0.2 before)', snippet('py-task-files/pathlib-read-bytes.py')],
    ['a fake module for a later test file put in sys.modules, compiled under its name', snippet('py-task-files/fake-sys-modules-entry.py')],
    ['a test function made by hand from code named as the test file', snippet('py-task-files/hand-made-test-function.py')],
  ];
  LATER_FILE_HACKS.push(['rewriting a later test file on disk before it is collected', snippet('py-task-files/rewrite-on-disk.py')]);
  for (const [name, code] of LATER_FILE_HACKS) {
    it(`task files: ${name}`, async () => {
      const g = await gradeRepoTask(manager, py2, pyAtImport(code));
      expectZero(g);
    });
  }
  it('control: the gold patch scores 1 on the two-file task', async () => {
    expect((await gradeRepoTask(manager, py2, pyGold)).reward).toBe(1);
  });
  it('test-file and config edits are listed as rejected paths', async () => {
    const g = await gradeRepoTask(manager, py, edit(pyWorkspace, { 'tests/test_ops.py': null, 'conftest.py': 'x = 1\n', 'evil.pth': 'x\n' }));
    expect(g.rejectedPaths).toEqual(['conftest.py', 'evil.pth', 'tests/test_ops.py']);
    expect(g.components.rejected_paths).toBe(3);
  });
  it('the hidden test file is the task’s, whatever the agent wrote there', () => {
    expect(Object.keys(pyHidden)).toEqual(['tests/test_add.py']);
  });
});

const JS_HACKS: [string, string][] = [
  ['editing the visible test file', edit(jsWorkspace, { 'test/mul.test.js': hack('js/edit-visible-test-file.js') })],
  [
    'writing the hidden test file',
    edit(jsWorkspace, {
      'test/add.test.js': hack('js/write-hidden-test-file.js'),
    }),
  ],
  ['changing package.json test config', edit(jsWorkspace, { 'package.json': hack('js/package-json-test-script.json') })],
  ['process.exit(0) at import', jsAtImport(snippet('js/process-exit.js'))],
  ['patching node:test at import', jsAtImport(snippet('js/patch-node-test.js'))],
  ['patching node:assert at import', jsAtImport(snippet('js/patch-node-assert.js'))],
  ['patching the stream the reporter reads', jsAtImport(snippet('js/patch-reporter-stream.js'))],
  ['patching Array.prototype.join', jsAtImport(snippet('js/patch-array-join.js'))],
  ['printing fake TAP pass lines', jsAtImport(snippet('js/print-fake-tap.js'))],
  ['registering same-named passing tests', jsAtImport(snippet('js/same-named-tests.js'))],
  ['test.skip via a patched test()', jsAtImport(snippet('js/test-skip.js'))],
  ['writing fake report files', jsAtImport(snippet('js/fake-report-files.js'))],
  ['leaving a background process behind', jsAtImport(snippet('js/background-process.js'))],
];

/**
 * Attacks on the reporter's secrets (the key lives in its module scope). `forge(key, fd)` writes
 * a validly signed report claiming every test passed and exits; each hack differs in how it
 * gets the key.
 */
const JS_ALL_PASSED = JSON.stringify(Object.fromEntries([...jsF2P, ...jsP2P].map((id) => [id, 'passed'])));
const JS_FORGE = fill(hack('js-secrets/forge.js'), { __ALL_PASSED__: JS_ALL_PASSED });
/** Reads a process's writable memory through /proc/PID/mem for the job's JSON text ("key":"<hex>"). */
const JS_MEM_SCAN = hack('js-secrets/mem-scan.js');
const jsSteal = (how: string) => jsAtImport(`${JS_FORGE}\n${how}`);

const JS_SECRET_HACKS: [string, string][] = [
  ["node:inspector: reading the reporter's module scope ([[Scopes]])", jsSteal(snippet('js-secrets/inspector-scopes.js'))],
  ["process.binding('inspector'): a raw inspector connection", jsSteal(snippet('js-secrets/binding-inspector.js'))],
  ['a V8 heap snapshot (node:v8): the first 64-hex-digit string in it', jsSteal(snippet('js-secrets/heap-snapshot.js'))],
  ['reading the key from /proc/self/mem', jsSteal(fill(snippet('js-secrets/proc-self-mem.js'), { __MEM_SCAN__: JS_MEM_SCAN }))],
  [
    'a child process reading the reporter’s memory (/proc/PPID/mem)',
    jsSteal(
      fill(snippet('js-secrets/proc-ppid-mem/parent.js'), {
        __CHILD__: JSON.stringify(fill(snippet('js-secrets/proc-ppid-mem/child.js'), { __MEM_SCAN__: JS_MEM_SCAN })),
      }),
    ),
  ],
];

/** The unsolved module whose `add` first runs `code` (on every call), then still subtracts. */
const jsInAdd = (code: string, prelude = '') =>
  edit(jsWorkspace, { 'src/math.js': `${prelude}${jsSrc.replace('export function add(a, b) {\n', `export function add(a, b) {\n${code}\n`)}` });
const PASS_INSTEAD = 'function () { this.pass(); }';
/**
 * Found by four red-team passes over the reporter: each scored 1 on the unsolved task before its
 * guard. Where async_hooks now hands out a stand-in, the attack does nothing (no tampering
 * to report); where a patch is refused, the refusal is reported.
 */
const JS_INTERNALS: [string, string, { refused: boolean }][] = [
  [
    'the running test from async_hooks.executionAsyncResource (Test.prototype.fail made to pass)',
    jsInAdd(
      fill(snippet('js-internals/execution-async-resource/add-body.js'), { __PASS_INSTEAD__: PASS_INSTEAD }),
      hack('js-internals/execution-async-resource/prelude.js'),
    ),
    { refused: false },
  ],
  [
    'every test from an async_hooks.createHook init callback',
    jsAtImport(fill(snippet('js-internals/create-hook-init.js'), { __PASS_INSTEAD__: PASS_INSTEAD })),
    { refused: false },
  ],
  [
    'AsyncResource.prototype.runInAsyncScope patched to catch the test, then put back',
    jsAtImport(fill(snippet('js-internals/run-in-async-scope.js'), { __PASS_INSTEAD__: PASS_INSTEAD })),
    { refused: true },
  ],
  [
    'forged pass events on the runner’s own reporter stream',
    jsInAdd(snippet('js-internals/forged-reporter-events/add-body.js'), hack('js-internals/forged-reporter-events/prelude.js')),
    { refused: false },
  ],
  ['Array.prototype.push patched to turn the next test:fail into test:pass, then put back', jsInAdd(snippet('js-internals/array-push.js')), { refused: true }],
  [
    'tests from eval’d code that claim the hidden file (//# sourceURL), the real file made to fail to load',
    edit(jsWorkspace, {
      'src/math.js': snippet('js-internals/eval-source-url.js'),
    }),
    { refused: false },
  ],
  [
    '%AsyncIteratorPrototype%[Symbol.asyncIterator] replaced to rewrite every event (and node’s pass count)',
    jsAtImport(snippet('js-internals/async-iterator-prototype.js')),
    { refused: true },
  ],
  ['Buffer.prototype.utf8Write rewriting the report’s text before it is signed', jsAtImport(snippet('js-internals/buffer-utf8-write.js')), { refused: true }],
  [
    'the real tests moved under a test of the solution’s (a Promise.prototype getter for the async id), fakes at their names',
    edit(jsWorkspace, {
      'src/math.js': snippet('js-internals/promise-async-id-getter.js'),
    }),
    { refused: false },
  ],
  [
    'the test files never finish loading (a top-level await that never settles), fakes claiming them',
    edit(jsWorkspace, {
      'src/math.js': snippet('js-internals/never-settling-await.js'),
    }),
    { refused: false },
  ],
];

describe('hack suite (javascript): none raises the reward of an unsolved task', () => {
  it('control: the gold patch scores 1 under the same grader', async () => {
    expect((await gradeRepoTask(manager, js, jsGold)).reward).toBe(1);
  });
  for (const [name, patch] of JS_HACKS) {
    it(name, async () => {
      expectZero(await gradeRepoTask(manager, js, patch));
    });
  }
  for (const [name, patch, { refused }] of JS_INTERNALS) {
    it(`runner internals: ${name}`, async () => {
      const g = await gradeRepoTask(manager, js, patch);
      expectZero(g);
      expect(g.components.tampered, g.error).toBe(refused ? 1 : 0);
    });
  }
  for (const [name, patch] of JS_SECRET_HACKS) {
    it(`reporter secrets: ${name}`, async () => {
      expectZero(await gradeRepoTask(manager, js, patch));
    });
  }
  // Module loader hooks from the solution would load every later file through the agent's
  // code: a second FAIL_TO_PASS test file, loaded after the solution ran, rewritten to pass.
  const js2 = jsTask({
    hidden_tests: {
      ...jsHidden,
      'test/add2.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.js';\n\ntest('add2', () => assert.equal(add(2, 2), 4));\n",
    },
    FAIL_TO_PASS: [...jsF2P, 'test/add2.test.js::add2'],
  });
  it('loader hooks: module.register rewriting a later test file is refused (scored 1/3 before), tampered', async () => {
    const hook = snippet('js-loader-hooks/module-register/hook.mjs');
    const patch = jsAtImport(fill(snippet('js-loader-hooks/module-register/register.js'), { __HOOK__: JSON.stringify(hook) }));
    const g = await gradeRepoTask(manager, js2, patch);
    expectZero(g);
    expect(g.components.tampered).toBe(1);
    expect(g.error).toContain('module.register');
  });
  it('task files: fs.promises.readFile serving a fake later test file, then put back, is not what loads it', async () => {
    const patch = jsAtImport(snippet('js-task-files/fs-promises-read-file.js'));
    expectZero(await gradeRepoTask(manager, js2, patch));
  });
  it('task files: rewriting a later test file on disk before it loads is not what runs', async () => {
    const patch = jsAtImport(snippet('js-task-files/rewrite-on-disk.js'));
    expectZero(await gradeRepoTask(manager, js2, patch));
  });
  it('loader hooks: a correct solution that patches the CommonJS loader (Module.prototype._compile) scores 0, tampered', async () => {
    const patch = edit(jsWorkspace, {
      'src/math.js': `${hack('js-loader-hooks/module-compile.js')}${jsSrc.replace('return a - b', 'return a + b')}`,
    });
    const g = await gradeRepoTask(manager, js2, patch);
    expect(g.reward).toBe(0);
    expect(g.components.tampered).toBe(1);
    expect(g.error).toContain('node:module.prototype._compile');
  });
  it('control: the gold patch scores 1 on the two-file task', async () => {
    expect((await gradeRepoTask(manager, js2, jsGold)).reward).toBe(1);
  });
  it('native code: node refuses to load an addon in the test process (the permission model), so only a fix can score', async () => {
    // add() is right only when the addon load was refused; an addon (native code) could rewrite the reporter's memory
    const probe = hack('js-native/dlopen-probe.js');
    const patch = edit(jsWorkspace, {
      'src/math.js': `${probe}${jsSrc.replace('return a - b;', "return refused === 'ERR_DLOPEN_DISABLED' ? a + b : a - b;")}`,
    });
    const g = await gradeRepoTask(manager, js, patch);
    expect(g.error ?? null).toBeNull();
    expect(g.reward, JSON.stringify(g.tests)).toBe(1);
  });
});
