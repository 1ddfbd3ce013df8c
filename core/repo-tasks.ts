import { z } from 'zod';
import { environmentName } from './environments';
import { RISK_TIERS, TASK_LANGUAGES, TASK_SPLITS } from './tasks';

/**
 * Repository tasks (SWE-bench style): a workspace the agent edits through tools, a problem
 * statement, hidden tests added only at grading, and the test ids that must pass
 * (FAIL_TO_PASS) and keep passing (PASS_TO_PASS). The task importer (server/tasks), the agent
 * library (lib/agent), the built-in suite (tasks/repo-suite) and the console all use these
 * shapes. Imports nothing of ours but core/.
 */

export const REPO_TASK_FORMATS = ['crucible-repo', 'swebench'] as const;
export type RepoTaskFormat = (typeof REPO_TASK_FORMATS)[number];

export const REPO_TASK_DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export type RepoTaskDifficulty = (typeof REPO_TASK_DIFFICULTIES)[number];

/** The environment repository tasks run in by default: the default toolchain plus pytest. */
export const REPO_DEFAULT_ENVIRONMENT = 'repo';

/** A relative path inside a workspace: no leading slash, no `..`, no empty segment. */
export const workspacePath = z
  .string()
  .min(1)
  .max(1000)
  .refine((p) => !p.startsWith('/') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..'), {
    message: 'workspace paths are relative, without "..", "." or empty segments (e.g. "src/app.py")',
  });

/** One file's content: UTF-8 text, or base64 for binary files. */
export const workspaceFile = z.union([z.string(), z.object({ base64: z.string(), executable: z.boolean().optional() }).strict()]);
export type WorkspaceFile = z.infer<typeof workspaceFile>;

/** A directory tree as path → content. */
export const workspaceFiles = z.record(workspacePath, workspaceFile);
export type WorkspaceFiles = z.infer<typeof workspaceFiles>;

/** Where a task's workspace comes from, as written in a task line. */
export const workspaceSource = z.union([
  z.object({ files: workspaceFiles }).strict(),
  z.object({ dir: z.string().min(1) }).strict(),
  z.object({ tarball: z.string().min(1) }).strict(),
  z.object({ git: z.string().min(1), commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'commit is a hex git commit id') }).strict(),
]);
export type WorkspaceSource = z.infer<typeof workspaceSource>;

/**
 * A test id: a pytest node id (`tests/test_x.py::test_y`, `tests/test_x.py::TestK::test_y`)
 * or, for node's test runner, `FILE::NAME` with nested test names joined by ` > `.
 */
export const repoTestId = z.string().min(1).max(1000).includes('::', { message: 'test ids look like FILE::NAME, e.g. tests/test_x.py::test_y' });

/** A repository task's language; `typescript` is JavaScript whose `.ts`/`.mts` files the grader loads with their types stripped (docs/agents.md). */
const repoLanguage = z.enum([...TASK_LANGUAGES, 'typescript']).transform((l) => (l === 'typescript' ? 'javascript' : l));

/** One line of a `crucible-repo` task file. */
export const crucibleRepoTaskLine = z
  .object({
    id: z.string().min(1).max(200),
    language: repoLanguage,
    problem_statement: z.string().min(1).max(200_000),
    workspace: workspaceSource,
    /** files added (or replaced) only at grading, like SWE-bench's test_patch */
    hidden_tests: workspaceFiles.default({}),
    /** the same as a unified diff against the workspace, applied at grading */
    test_patch: z.string().optional(),
    /** run once in the workspace before the agent's first turn and before grading */
    setup: z.string().max(10_000).optional(),
    /** defaults per language (pytest / node --test); the grader adds its own report options */
    test_command: z.string().max(10_000).optional(),
    FAIL_TO_PASS: z.array(repoTestId).min(1, 'a task needs at least one FAIL_TO_PASS test'),
    PASS_TO_PASS: z.array(repoTestId).default([]),
    /** the reference solution as a unified diff against the workspace */
    gold_patch: z.string().optional(),
    split: z.enum(TASK_SPLITS).optional(),
    difficulty: z.enum(REPO_TASK_DIFFICULTIES).optional(),
    risk: z.enum(RISK_TIERS).optional(),
    env: environmentName.optional(),
  })
  .strict();
export type CrucibleRepoTaskLine = z.output<typeof crucibleRepoTaskLine>;

/** A JSON array of test ids, or (as SWE-bench publishes them) that array as a JSON string. */
const testIdList = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}, z.array(repoTestId));

/** SWE-bench Verified's time estimates (its `difficulty` column), as Crucible's three levels. */
const SWEBENCH_VERIFIED_DIFFICULTY: Record<string, RepoTaskDifficulty> = {
  '<15 min fix': 'easy',
  '15 min - 1 hour': 'medium',
  '1-4 hours': 'hard',
  '>4 hours': 'hard',
};

/** A GitHub-style `owner/name`: two plain segments, neither `.` nor `..` (it becomes a path under the mirror directory). */
export const repoSlug = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'repo is "owner/name", e.g. "astropy/astropy"')
  .refine((r) => r.split('/').every((s) => s !== '.' && s !== '..'), { message: 'repo segments cannot be "." or ".."' });

const gitCommit = (field: string) => z.string().regex(/^[0-9a-f]{7,40}$/, `${field} is a hex git commit id`);

/**
 * One line of a SWE-bench-style file, as upstream publishes it (SWE-bench, Lite, Verified, SWE-Gym…):
 * `repo` ("owner/name", read from a mirror directory: `--repos DIR` / CRUCIBLE_REPO_MIRRORS) or
 * `repo_path` (a local git repository, which wins when both are given). FAIL_TO_PASS/PASS_TO_PASS
 * may be JSON-encoded strings; `hints_text`, `created_at`, `version` and other columns are kept out.
 */
export const swebenchTaskLine = z
  .object({
    instance_id: z.string().min(1).max(200),
    repo: repoSlug.optional(),
    repo_path: z.string().min(1).optional(),
    base_commit: gitCommit('base_commit'),
    /** the commit SWE-bench installs the environment from; checked to exist in the mirror */
    environment_setup_commit: gitCommit('environment_setup_commit').optional(),
    problem_statement: z.string().min(1),
    patch: z.string().min(1, 'patch (the gold patch) is a unified diff'),
    test_patch: z.string().min(1, 'test_patch is a unified diff adding the hidden tests'),
    FAIL_TO_PASS: testIdList.pipe(z.array(repoTestId).min(1, 'FAIL_TO_PASS needs at least one test id')),
    PASS_TO_PASS: testIdList.default([]),
    language: repoLanguage.default('python'),
    test_command: z.string().max(10_000).optional(),
    // not SWE-bench fields: what a crucible-repo line can say too
    setup: z.string().max(10_000).optional(),
    split: z.enum(TASK_SPLITS).optional(),
    /** easy/medium/hard, or SWE-bench Verified's time estimate ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours") */
    difficulty: z
      .preprocess(
        (v) => (typeof v === 'string' && Object.hasOwn(SWEBENCH_VERIFIED_DIFFICULTY, v) ? SWEBENCH_VERIFIED_DIFFICULTY[v] : v),
        z.enum(REPO_TASK_DIFFICULTIES),
      )
      .optional(),
    /** the environment its tests need (extra packages, pytest plugins); default `repo` */
    env: environmentName.optional(),
  })
  .passthrough()
  .refine((l) => l.repo !== undefined || l.repo_path !== undefined, {
    message:
      'a SWE-bench line names its repository: "repo" ("owner/name", read from --repos DIR or CRUCIBLE_REPO_MIRRORS) or "repo_path" (a local git repository)',
    path: ['repo'],
  });
export type SwebenchTaskLine = z.output<typeof swebenchTaskLine>;

/**
 * A task resolved for running: the workspace as files with its content hash (recorded with
 * every reward), the hidden tests as files (a test_patch already applied to a scratch copy),
 * everything else as given.
 */
export type RepoTask = {
  id: string;
  language: (typeof TASK_LANGUAGES)[number];
  problemStatement: string;
  workspace: WorkspaceFiles;
  /** sha256 of the workspace's canonical manifest */
  workspaceSha256: string;
  hiddenTests: WorkspaceFiles;
  setup: string | null;
  testCommand: string | null;
  failToPass: string[];
  passToPass: string[];
  goldPatch: string | null;
  environment: string;
};

/** The agent's tools, by name; argument schemas live with the tools (lib/agent/tools). */
export const AGENT_TOOL_NAMES = ['bash', 'read_file', 'view', 'write_file', 'str_replace', 'insert', 'undo_edit', 'think', 'submit'] as const;
export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];

/**
 * The tools an episode gets unless a run chooses (run config `tools`): a small set keeps the
 * prompt short (each schema is about 700 bytes); the editor tools (view, insert, undo_edit)
 * and think are offered on request.
 */
export const DEFAULT_AGENT_TOOLS: readonly AgentToolName[] = ['bash', 'read_file', 'write_file', 'str_replace', 'submit'];

/** Why an agent episode ended. */
export const AGENT_EPISODE_ENDS = ['submitted', 'max_turns', 'token_budget', 'time_budget', 'sandbox_error'] as const;
export type AgentEpisodeEnd = (typeof AGENT_EPISODE_ENDS)[number];

/** One test's result at grading, read from the grader's own report (never the agent's stdout). */
export type RepoTestResult = { name: string; passed: boolean; outcome: 'passed' | 'failed' | 'error' | 'skipped' | 'missing'; detail?: string };

/**
 * A repository task's grade (lib/agent/grade). `infra_error`: the grader could not run the
 * tests for a reason that is not the agent's (sandbox error, environment mismatch, the grader's
 * own failure or deadline); its reward is null and must be masked, never scored 0.
 */
export type RepoGrade = {
  status: 'graded' | 'infra_error';
  reward: number | null;
  /** f2p, p2p (pass fractions), p2p_all, patch_applied, tampered, rejected_paths … */
  components: Record<string, number>;
  tests: RepoTestResult[];
  patchApplied: boolean;
  /** agent changes to test files or test configuration that grading dropped (and restored) */
  rejectedPaths: string[];
  runtime: string;
  envHash: string;
  workspaceSha256: string;
  durationMs: number;
  error?: string;
  /**
   * What looked like reaching for the tests or the grader but could be honest code (the
   * patch's own lines, frame access, an equality the agent wrote): the reward is held for
   * review — always sampled, left out of the loss until a reviewer has seen it.
   */
  suspect?: string[];
};

/** One tool call of an agent turn as stored (turns.tool_calls): what was asked and what the agent saw. */
export type StoredToolCall = {
  name: string;
  arguments: Record<string, unknown>;
  /** the tool message the agent received (already capped) */
  output: string;
  error?: string;
  durationMs: number;
  submitted?: boolean;
  /** the call never ran (absent: it was a valid call, whatever its outcome) */
  rejected?: RejectedToolCall;
};

/**
 * Why a tool call never ran: its text could not be read as a call, it named a tool not offered,
 * or its arguments failed the tool's schema. A call that ran and failed (a file not found, a
 * command's non-zero exit) is valid: the model spoke the protocol. Counted per turn as
 * `valid_tool_calls_per_turn` (core/metrics.ts).
 */
export type RejectedToolCall = 'malformed' | 'unknown_tool' | 'bad_arguments';

/**
 * How a repository task's episode was graded (episodes.grading): the agent's patch, the grade
 * from the clean grading sandbox and its per-test results, so the episode page shows the
 * grading run beside the agent's turns.
 */
export type EpisodeGrading = RepoGrade & {
  /** the agent's changes as a unified diff against the pristine workspace */
  patch: string;
  /** files the diff could not represent (binary) */
  binarySkipped: string[];
  /** why the agent's episode ended */
  end: AgentEpisodeEnd;
};
