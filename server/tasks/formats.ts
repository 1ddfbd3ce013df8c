import { z } from 'zod';
import { nulCharacterProblem } from '@/core/nul-characters';
import { environmentName } from '@/core/environments';
import {
  ioTest,
  RISK_TIERS,
  TASK_LANGUAGES,
  TASK_SPLITS,
  type RiskTier,
  type TaskFileFormat,
  type TaskLanguage,
  type TaskSplit,
  type TaskTests,
} from '@/core/tasks';
import { describeIssues } from '@/server/errors';

/** Crucible JSONL: one task a line. */
export const crucibleTaskLine = z
  .object({
    id: z.string().min(1).max(200),
    language: z.enum(TASK_LANGUAGES),
    prompt: z.string().min(1).max(100_000),
    entryPoint: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'entryPoint must be a function name'),
    tests: z.array(ioTest).min(1, 'a task needs at least one test').max(1000),
    risk: z.enum(RISK_TIERS).optional(),
    env: environmentName.optional(),
    split: z.enum(TASK_SPLITS).optional(),
    difficulty: z.number().int().min(0).max(100).optional(),
    solution: z.string().max(100_000).optional(),
  })
  .strict();

/** HumanEval-style JSONL: `test` defines check(candidate). Extra HumanEval fields are ignored. */
export const humanEvalLine = z.object({
  task_id: z.string().min(1).max(200),
  prompt: z.string().min(1),
  test: z
    .string()
    .min(1)
    .refine((t) => /def\s+check\s*\(/.test(t), 'test must define check(candidate)'),
  entry_point: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'entry_point must be a function name'),
  canonical_solution: z.string().optional(),
});

export type ParsedTask = {
  externalId: string;
  language: TaskLanguage;
  prompt: string;
  entryPoint: string;
  tests: TaskTests;
  risk: RiskTier;
  environmentName: string | null;
  split: TaskSplit;
  difficulty: number | null;
  demonstration: string | null;
};

export type LineError = { line: number; message: string };

/**
 * Parse a whole JSONL file. Every bad line is reported with its 1-based line number;
 * callers import nothing unless `errors` is empty.
 */
export function parseTaskFile(text: string, format: TaskFileFormat): { tasks: ParsedTask[]; errors: LineError[] } {
  const tasks: ParsedTask[] = [];
  const errors: LineError[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      errors.push({ line, message: `not valid JSON (${(e as Error).message})` });
      return;
    }
    const nul = nulCharacterProblem(json);
    if (nul) return void errors.push({ line, message: nul });
    let task: ParsedTask;
    if (format === 'crucible') {
      const r = crucibleTaskLine.safeParse(json);
      if (!r.success) return void errors.push({ line, message: describeIssues(r.error.issues) });
      const t = r.data;
      task = {
        externalId: t.id,
        language: t.language,
        prompt: t.prompt,
        entryPoint: t.entryPoint,
        tests: { kind: 'io', cases: t.tests },
        risk: t.risk ?? 'routine',
        environmentName: t.env ?? null,
        split: t.split ?? 'train',
        difficulty: t.difficulty ?? null,
        demonstration: t.solution ?? null,
      };
    } else {
      const r = humanEvalLine.safeParse(json);
      if (!r.success) return void errors.push({ line, message: describeIssues(r.error.issues) });
      const t = r.data;
      task = {
        externalId: t.task_id,
        language: 'python',
        prompt: t.prompt,
        entryPoint: t.entry_point,
        tests: { kind: 'humaneval', check: t.test },
        risk: 'routine',
        environmentName: null,
        split: 'train',
        difficulty: null,
        demonstration: t.canonical_solution ? t.prompt + t.canonical_solution : null,
      };
    }
    const dup = seen.get(task.externalId);
    if (dup !== undefined) return void errors.push({ line, message: `duplicate task id "${task.externalId}" (first on line ${dup})` });
    seen.set(task.externalId, line);
    tasks.push(task);
  });
  if (tasks.length === 0 && errors.length === 0) errors.push({ line: 0, message: 'the file has no tasks' });
  return { tasks, errors };
}
