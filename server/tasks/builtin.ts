import { createHash } from 'node:crypto';
import type { ParsedTask } from './formats';

/**
 * The built-in suite: small string, list and arithmetic functions of graded difficulty,
 * in Python and JavaScript, with reference solutions (SFT demonstrations). Expected values
 * come from a TypeScript reference of each function, so tests never depend on a sandbox.
 * Generation is deterministic: same code → same suite.
 */
type Arg = number | string | number[];
type Family = {
  name: string;
  difficulty: number;
  params: number[]; // one task per parameter value (e.g. the k in add_k); [0] if none
  doc: (k: number) => string;
  args: string[];
  py: (k: number) => string; // body expression / statements in Python
  js: (k: number) => string;
  ref: (k: number, ...a: never[]) => unknown;
  gen: (rand: () => number, k: number) => Arg[];
};

const int = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const word = (rand: () => number) => Array.from({ length: int(rand, 1, 6) }, () => 'abcdeilmnorstu'[int(rand, 0, 13)]).join('');
const list = (rand: () => number, lo = -9, hi = 9) => Array.from({ length: int(rand, 1, 6) }, () => int(rand, lo, hi));

const families: Family[] = [
  {
    name: 'add',
    difficulty: 1,
    params: [1, 2, 3, 4, 5, 6, 7, 8, 9],
    doc: (k) => `Return x plus ${k}.`,
    args: ['x'],
    py: (k) => `return x + ${k}`,
    js: (k) => `return x + ${k};`,
    ref: (k, x: number) => x + k,
    gen: (r) => [int(r, -20, 20)],
  },
  {
    name: 'times',
    difficulty: 1,
    params: [2, 3, 4, 5, 6, 7],
    doc: (k) => `Return x times ${k}.`,
    args: ['x'],
    py: (k) => `return x * ${k}`,
    js: (k) => `return x * ${k};`,
    ref: (k, x: number) => x * k,
    gen: (r) => [int(r, -20, 20)],
  },
  {
    name: 'minus',
    difficulty: 1,
    params: [1, 2, 3, 5, 10],
    doc: (k) => `Return x minus ${k}.`,
    args: ['x'],
    py: (k) => `return x - ${k}`,
    js: (k) => `return x - ${k};`,
    ref: (k, x: number) => x - k,
    gen: (r) => [int(r, -20, 20)],
  },
  {
    name: 'mod',
    difficulty: 2,
    params: [2, 3, 4, 5, 6, 7],
    doc: (k) => `Return x modulo ${k}.`,
    args: ['x'],
    py: (k) => `return x % ${k}`,
    js: (k) => `return x % ${k};`,
    ref: (k, x: number) => x % k,
    gen: (r) => [int(r, 0, 40)],
  },
  {
    name: 'above',
    difficulty: 2,
    params: [0, 1, 2, 3, 4, 5],
    doc: (k) => `Return True if x is greater than ${k}, else False.`,
    args: ['x'],
    py: (k) => `return x > ${k}`,
    js: (k) => `return x > ${k};`,
    ref: (k, x: number) => x > k,
    gen: (r) => [int(r, -3, 9)],
  },
  {
    name: 'square',
    difficulty: 2,
    params: [0],
    doc: () => 'Return x squared.',
    args: ['x'],
    py: () => 'return x * x',
    js: () => 'return x * x;',
    ref: (_k, x: number) => x * x,
    gen: (r) => [int(r, -12, 12)],
  },
  {
    name: 'negate',
    difficulty: 2,
    params: [0],
    doc: () => 'Return the negation of x.',
    args: ['x'],
    py: () => 'return -x',
    js: () => 'return -x;',
    ref: (_k, x: number) => (x === 0 ? 0 : -x),
    gen: (r) => [int(r, -20, 20) || 1],
  },
  {
    name: 'max2',
    difficulty: 2,
    params: [0],
    doc: () => 'Return the larger of a and b.',
    args: ['a', 'b'],
    py: () => 'return a if a > b else b',
    js: () => 'return a > b ? a : b;',
    ref: (_k, a: number, b: number) => Math.max(a, b),
    gen: (r) => [int(r, -9, 9), int(r, -9, 9)],
  },
  {
    name: 'min2',
    difficulty: 2,
    params: [0],
    doc: () => 'Return the smaller of a and b.',
    args: ['a', 'b'],
    py: () => 'return a if a < b else b',
    js: () => 'return a < b ? a : b;',
    ref: (_k, a: number, b: number) => Math.min(a, b),
    gen: (r) => [int(r, -9, 9), int(r, -9, 9)],
  },
  {
    name: 'is_even',
    difficulty: 2,
    params: [0],
    doc: () => 'Return True if x is even, else False.',
    args: ['x'],
    py: () => 'return x % 2 == 0',
    js: () => 'return x % 2 === 0;',
    ref: (_k, x: number) => x % 2 === 0,
    gen: (r) => [int(r, 0, 30)],
  },
  {
    name: 'sum_list',
    difficulty: 3,
    params: [0],
    doc: () => 'Return the sum of the numbers in xs.',
    args: ['xs'],
    py: () => 'return sum(xs)',
    js: () => 'return xs.reduce((a, b) => a + b, 0);',
    ref: (_k, xs: number[]) => xs.reduce((a, b) => a + b, 0),
    gen: (r) => [list(r)],
  },
  {
    name: 'max_list',
    difficulty: 3,
    params: [0],
    doc: () => 'Return the largest number in the non-empty list xs.',
    args: ['xs'],
    py: () => 'return max(xs)',
    js: () => 'return Math.max(...xs);',
    ref: (_k, xs: number[]) => Math.max(...xs),
    gen: (r) => [list(r)],
  },
  {
    name: 'count_list',
    difficulty: 3,
    params: [0],
    doc: () => 'Return how many items the list xs has.',
    args: ['xs'],
    py: () => 'return len(xs)',
    js: () => 'return xs.length;',
    ref: (_k, xs: number[]) => xs.length,
    gen: (r) => [list(r)],
  },
  {
    name: 'reverse',
    difficulty: 3,
    params: [0],
    doc: () => 'Return the string s reversed.',
    args: ['s'],
    py: () => 'return s[::-1]',
    js: () => "return s.split('').reverse().join('');",
    ref: (_k, s: string) => [...s].reverse().join(''),
    gen: (r) => [word(r)],
  },
  {
    name: 'upper',
    difficulty: 3,
    params: [0],
    doc: () => 'Return s in upper case.',
    args: ['s'],
    py: () => 'return s.upper()',
    js: () => 'return s.toUpperCase();',
    ref: (_k, s: string) => s.toUpperCase(),
    gen: (r) => [word(r)],
  },
  {
    name: 'take',
    difficulty: 3,
    params: [1, 2, 3, 4],
    doc: (k) => `Return the first ${k} items of the list xs.`,
    args: ['xs'],
    py: (k) => `return xs[:${k}]`,
    js: (k) => `return xs.slice(0, ${k});`,
    ref: (k, xs: number[]) => xs.slice(0, k),
    gen: (r) => [list(r)],
  },
  {
    name: 'add_each',
    difficulty: 3,
    params: [1, 2, 3, 4, 5],
    doc: (k) => `Return the list xs with ${k} added to each item.`,
    args: ['xs'],
    py: (k) => `return [x + ${k} for x in xs]`,
    js: (k) => `return xs.map((x) => x + ${k});`,
    ref: (k, xs: number[]) => xs.map((x) => x + k),
    gen: (r) => [list(r)],
  },
  {
    name: 'repeat',
    difficulty: 3,
    params: [2, 3, 4],
    doc: (k) => `Return the string s repeated ${k} times.`,
    args: ['s'],
    py: (k) => `return s * ${k}`,
    js: (k) => `return s.repeat(${k});`,
    ref: (k, s: string) => s.repeat(k),
    gen: (r) => [word(r)],
  },
  {
    name: 'count_evens',
    difficulty: 4,
    params: [0],
    doc: () => 'Return how many numbers in xs are even.',
    args: ['xs'],
    py: () => 'return len([x for x in xs if x % 2 == 0])',
    js: () => 'return xs.filter((x) => x % 2 === 0).length;',
    ref: (_k, xs: number[]) => xs.filter((x) => x % 2 === 0).length,
    gen: (r) => [list(r, 0, 20)],
  },
  {
    name: 'sum_squares',
    difficulty: 4,
    params: [0],
    doc: () => 'Return the sum of the squares of the numbers in xs.',
    args: ['xs'],
    py: () => 'return sum(x * x for x in xs)',
    js: () => 'return xs.reduce((a, x) => a + x * x, 0);',
    ref: (_k, xs: number[]) => xs.reduce((a, x) => a + x * x, 0),
    gen: (r) => [list(r)],
  },
  {
    name: 'is_palindrome',
    difficulty: 4,
    params: [0],
    doc: () => 'Return True if s reads the same forwards and backwards.',
    args: ['s'],
    py: () => 'return s == s[::-1]',
    js: () => "return s === s.split('').reverse().join('');",
    ref: (_k, s: string) => s === [...s].reverse().join(''),
    gen: (r) => {
      const w = word(r);
      return [r() < 0.5 ? w + [...w].reverse().join('') : w];
    },
  },
  {
    name: 'factorial',
    difficulty: 5,
    params: [0],
    doc: () => 'Return n factorial (n >= 0).',
    args: ['n'],
    py: () => 'r = 1\n    for i in range(2, n + 1):\n        r *= i\n    return r',
    js: () => 'let r = 1;\n  for (let i = 2; i <= n; i++) r *= i;\n  return r;',
    ref: (_k, n: number) => Array.from({ length: n }, (_, i) => i + 1).reduce((a, b) => a * b, 1),
    gen: (r) => [int(r, 0, 10)],
  },
];

/**
 * The suite's own generator (xorshift32, seeded by a hash of the task's name), not
 * core/random.ts: it defines the suite's test cases, so it is part of the suite's data. Another
 * generator would change every built-in task that deployments imported, and the curriculum the
 * learning test and its recorded runs use.
 */
function seeded(seed: string) {
  let h = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    // xorshift32: deterministic across platforms
    h ^= h << 13;
    h >>>= 0;
    h ^= h >>> 17;
    h ^= h << 5;
    h >>>= 0;
    return h / 2 ** 32;
  };
}

const fnName = (f: Family, k: number) => (f.params.length > 1 ? `${f.name}_${k}` : f.name);
const jsDoc = (doc: string) => doc.replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false');

export const BUILTIN_SUITE = 'builtin';

export function builtinSuite(): ParsedTask[] {
  const out: ParsedTask[] = [];
  for (const f of families) {
    for (const k of f.params) {
      const name = fnName(f, k);
      const rand = seeded(`${f.name}:${k}`);
      const cases: { input: Arg[]; expected: unknown }[] = [];
      const seen = new Set<string>();
      for (let tries = 0; cases.length < 6 && tries < 100; tries++) {
        const input = f.gen(rand, k);
        const key = JSON.stringify(input);
        if (seen.has(key)) continue;
        seen.add(key);
        cases.push({ input, expected: (f.ref as (k: number, ...a: Arg[]) => unknown)(k, ...input) });
      }
      // Held-out split: every third parameter of a parameterised family (add_2, add_5, times_3…),
      // so held-out tasks test whether the policy generalises a pattern it has practised to a
      // constant it has not; single tasks (square, reverse…) stay in train, since a small
      // policy cannot be expected to invent a family it has never seen.
      const index = f.params.indexOf(k);
      const heldout = f.params.length > 1 && index % 3 === 1;
      const pyPrompt = `def ${name}(${f.args.join(', ')}):\n    """${f.doc(k)}"""\n`;
      const jsPrompt = `/** ${jsDoc(f.doc(k))} */\nfunction ${name}(${f.args.join(', ')}) {\n`;
      const common = {
        entryPoint: name,
        risk: 'routine' as const,
        environmentName: null,
        split: heldout ? ('heldout' as const) : ('train' as const),
        difficulty: f.difficulty,
      };
      out.push({
        ...common,
        externalId: `py/${name}`,
        language: 'python',
        prompt: pyPrompt,
        tests: { kind: 'io', cases },
        demonstration: `${pyPrompt}    ${f.py(k)}\n`,
      });
      out.push({
        ...common,
        externalId: `js/${name}`,
        language: 'javascript',
        prompt: jsPrompt,
        tests: { kind: 'io', cases },
        demonstration: `${jsPrompt}  ${f.js(k)}\n}\n`,
      });
    }
  }
  return out;
}
