import { z } from 'zod';

/**
 * What a task is made of, as the task importer (server/tasks), the database enums
 * (db/schema/runs.ts), the reward harness and RL workers, and the review console all see
 * it. Imports nothing from the project.
 */

export const TASK_LANGUAGES = ['python', 'javascript'] as const;
export type TaskLanguage = (typeof TASK_LANGUAGES)[number];

/** How risky a task's candidate code is; each tier maps to a sandbox runtime in the run config's `isolation`. */
export const RISK_TIERS = ['routine', 'high'] as const;
export type RiskTier = (typeof RISK_TIERS)[number];

/** Train tasks are sampled for episodes; held-out tasks only measure pass@k. */
export const TASK_SPLITS = ['train', 'heldout'] as const;
export type TaskSplit = (typeof TASK_SPLITS)[number];

/** Task file formats the importer reads (JSONL); the last two hold repository tasks (core/repo-tasks.ts). */
export const TASK_FILE_FORMATS = ['crucible', 'humaneval', 'crucible-repo', 'swebench'] as const;
export type TaskFileFormat = (typeof TASK_FILE_FORMATS)[number];

/** A JSON value a test can pass as an argument or expect back (compared type-strictly). */
export const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

/** One input/output test case: call the entry point with `input` as arguments, expect `expected`. */
export const ioTest = z.object({ input: z.array(jsonValue), expected: jsonValue }).strict();
export type IoTest = z.infer<typeof ioTest>;

/**
 * What a text task (tasks.kind = 'text') checks of the text the policy writes, a
 * continuation of the prompt: each is one test of its reward, applied by a checker program
 * in the sandbox (workers/rl/reward/text-checker.py), which reads the text as data.
 * - mentions: every word appears in the text (whole words, any case)
 * - ends_sentence: the text ends with ".", "!" or "?" (a closing quote may follow)
 * - min_words / max_words: the text has at least / at most n words
 */
export const textCheck = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('mentions'),
      words: z
        .array(z.string().regex(/^[A-Za-z][A-Za-z'-]{0,39}$/, "a word to mention is letters (and ' or -), at most 40"))
        .min(1)
        .max(10),
    })
    .strict(),
  z.object({ type: z.literal('ends_sentence') }).strict(),
  z.object({ type: z.literal('min_words'), n: z.number().int().min(1).max(10_000) }).strict(),
  z.object({ type: z.literal('max_words'), n: z.number().int().min(1).max(10_000) }).strict(),
]);
export type TextCheck = z.infer<typeof textCheck>;
/** A check in words, as the episode page and the review item name it. */
export function describeTextCheck(c: TextCheck): string {
  if (c.type === 'mentions') return `mentions ${c.words.join(', ')}`;
  if (c.type === 'ends_sentence') return 'ends a sentence';
  return `${c.type === 'min_words' ? 'at least' : 'at most'} ${c.n} words`;
}
export const textChecks = z.array(textCheck).min(1, 'a text task needs at least one check').max(20);

/** Kinds of task (tasks.kind): a function against tests, a repository with tests, or text scored by checks. */
export const TASK_KINDS = ['io', 'repo', 'text'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];
/**
 * What a registered (Hugging Face) model can run: text tasks, and repository tasks as agent
 * conversations in its chat template. I/O tasks' prompts and stop strings are written for the
 * built-in byte model's tokenizer.
 */
export const HF_TASK_KINDS = ['text', 'repo'] as const satisfies readonly TaskKind[];

/**
 * How tests are stored in tasks.tests: explicit input/expected pairs, a HumanEval check(),
 * a text task's checks, or for a repository task (tasks.kind = 'repo') a marker: its tests
 * live in repo_tasks.
 */
export type TaskTests = { kind: 'io'; cases: IoTest[] } | { kind: 'humaneval'; check: string } | { kind: 'text'; checks: TextCheck[] } | { kind: 'repo' };
export type TaskTestKind = TaskTests['kind'];

/**
 * One check's result in a turn of an input/output or HumanEval task, stored per turn
 * (turns.tests) so the episode page shows what each check got, not a summary line.
 */
export type TurnTestResult = { index: number; passed: boolean; ms: number; detail: string };
