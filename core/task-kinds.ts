import { describeTextCheck, textChecks, type TaskKind, type TaskTests } from './tasks';

/**
 * What each kind of task is, for every layer (the console, the CLI, the API): its name for people
 * and whether its episodes are agent episodes. What the RL loop does with each kind (prompting,
 * the episode, the reward, truncation, held-out evaluation, a diagnosis re-run) is one
 * implementation per kind in workers/rl/task-kinds. Code outside these two places asks these
 * traits, never `kind === '…'`.
 */
export const TASK_KIND_TRAITS = {
  io: { label: 'input/output', agentEpisodes: false },
  text: { label: 'text', agentEpisodes: false },
  repo: { label: 'repository', agentEpisodes: true },
} as const satisfies Record<TaskKind, { label: string; agentEpisodes: boolean }>;

/** The kinds whose episodes are agent episodes (for queries: `inArray(tasks.kind, AGENT_EPISODE_KINDS)`). */
export const AGENT_EPISODE_KINDS: TaskKind[] = (Object.keys(TASK_KIND_TRAITS) as TaskKind[]).filter((k) => TASK_KIND_TRAITS[k].agentEpisodes);

const traitsOf = (kind: string | null | undefined) => (kind && Object.hasOwn(TASK_KIND_TRAITS, kind) ? TASK_KIND_TRAITS[kind as TaskKind] : null);

/**
 * Whether a kind's episodes are agent episodes: tool calls in one sandbox, the patch graded in a
 * clean one at the end, the tests kept in repo_tasks.
 */
export const runsAgentEpisodes = (kind: string | null | undefined): boolean => traitsOf(kind)?.agentEpisodes ?? false;

/** A kind's name for people ("input/output task"), or the stored word when unknown. */
export const taskKindLabel = (kind: string): string => traitsOf(kind)?.label ?? kind;

/** The kind a parsed task's tests make it: text checks make a text task, cases or a check() an I/O task, the repository marker a repository task. */
export function kindOfTests(tests: TaskTests): TaskKind {
  switch (tests.kind) {
    case 'text':
      return 'text';
    case 'io':
    case 'humaneval':
      return 'io';
    case 'repo':
      return 'repo';
  }
}

export type TestCase = { name: string; input?: string; expected?: string };

/**
 * A task's tests (tasks.tests) as named cases for people: I/O cases as calls of the entry point
 * (also the bare array older rows store), a HumanEval check() as one test, a text task's checks
 * by what they require. A repository task's tests are listed from repo_tasks instead: none here.
 */
export function namedTestCases(tests: unknown, entryPoint: string | null): TestCase[] {
  const t = tests as { kind?: string; cases?: { input: unknown[]; expected: unknown }[]; checks?: unknown } | null;
  const cases = t?.kind === 'io' ? t.cases : Array.isArray(tests) ? (tests as { input: unknown[]; expected: unknown }[]) : null;
  if (cases)
    return cases.map((c, i) => {
      const args = Array.isArray(c.input) ? c.input.map((a) => JSON.stringify(a)).join(', ') : JSON.stringify(c.input);
      return { name: `#${i} ${entryPoint ?? 'f'}(${args})`, input: args, expected: JSON.stringify(c.expected) };
    });
  if (t?.kind === 'humaneval') return [{ name: `check(${entryPoint ?? 'candidate'})` }];
  const text = textChecks.safeParse(t?.checks);
  if (t?.kind === 'text' && text.success) return text.data.map((c, i) => ({ name: `#${i} ${describeTextCheck(c)}` }));
  return [];
}
