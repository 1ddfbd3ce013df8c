import assert from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { parsePatch } from 'diff';
import type { Sql } from 'postgres';
import type { EpisodeGrading, RepoGrade, RepoTask, StoredToolCall, WorkspaceFiles } from '@/core/repo-tasks';
import { defaultRunConfig, episodeSandboxLimits } from '@/core/run-config';
import { runAgentEpisode } from '@/lib/agent/episode/run-episode';
import { gradeRepoTask } from '@/lib/agent/grade/grade-repo-task';
import { ScriptedPolicy, type ScriptStep } from '@/lib/agent/policies/scripted';
import { ByteTemplateRenderer } from '@/lib/agent/render/byte-template';
import { loadRepoSuite, REPO_SUITE_DIR } from '@/lib/agent/suite/repo-suite';
import { applyWorkspacePatch } from '@/lib/agent/workspace/workspace-diff';
import { resolveRepoTask } from '@/lib/agent/workspace/resolve-task';
import { fileText } from '@/lib/agent/workspace/workspace-file';
import { ensureBuiltInEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { storeDirFor } from '@/lib/sandbox/env/env-store';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';
import { parseSettings } from '@/core/settings';

/**
 * A REAL agent episode for the episode page's browser test, with its rows written by this
 * seeder (not by the RL worker): the built-in suite's task run by `runAgentEpisode` in a bwrap
 * sandbox with the scripted policy, graded by `gradeRepoTask` in a new clean sandbox, then
 * stored the way the RL loop stores agent episodes (turns.tool_calls, turns.workspace_diff,
 * each turn's slice of the one token sequence, episodes.grading, a rewards row).
 *
 * The script is what an agent fixing the task could do: look around (one long output, one
 * failing call), run the visible tests, make the gold patch's edits as `str_replace` calls,
 * add a regression test of its own (a test file: grading drops it, a rejected path), rerun
 * the tests, submit.
 */

export const AGENT_TASK = 'py-intervals-touching';

/** One `str_replace` per run of changed lines (with as much hunk context as makes it unique), `write_file` where that cannot be. */
export function scriptFromPatch(workspace: WorkspaceFiles, patch: string): ScriptStep[] {
  const target = applyWorkspacePatch(workspace, patch);
  const steps: ScriptStep[] = [];
  for (const section of parsePatch(patch)) {
    const file = (section.newFileName ?? section.oldFileName ?? '').replace(/^[ab]\//, '');
    const want = fileText(target[file]!) ?? '';
    let text = workspace[file] === undefined ? null : fileText(workspace[file]);
    const edits: ScriptStep[] = [];
    for (const hunk of text === null ? [] : section.hunks) {
      const lines = hunk.lines.filter((l) => !l.startsWith('\\'));
      for (let i = 0; i < lines.length;) {
        if (lines[i]!.startsWith(' ')) {
          i++;
          continue;
        }
        let j = i;
        while (j < lines.length && !lines[j]!.startsWith(' ')) j++;
        const edit = uniqueEdit(text!, lines, i, j);
        if (!edit) {
          text = null;
          break;
        }
        text = text!.replace(edit.old_str, () => edit.new_str);
        edits.push({ name: 'str_replace', arguments: { path: file, ...edit } });
        i = j;
      }
      if (text === null) break;
    }
    if (text === want) steps.push(...edits);
    else steps.push({ name: 'write_file', arguments: { path: file, content: want } });
  }
  return steps;
}

/** The change lines[i..j) with k context lines each side, for the smallest k that occurs once in `text`. */
function uniqueEdit(text: string, lines: string[], i: number, j: number): { old_str: string; new_str: string } | null {
  let last = '';
  for (let k = 0; ; k++) {
    const slice = lines.slice(Math.max(0, i - k), Math.min(lines.length, j + k));
    const side = (keep: string) =>
      slice
        .filter((l) => l[0] === ' ' || l[0] === keep)
        .map((l) => `${l.slice(1)}\n`)
        .join('');
    const oldStr = side('-');
    if (oldStr && text.split(oldStr).length === 2) return { old_str: oldStr, new_str: side('+') };
    if (k > 0 && oldStr === last) return null; // the hunk has no more context to add
    last = oldStr;
  }
}

export function agentScript(task: RepoTask): ScriptStep[] {
  const test = 'python3 -m pytest -q';
  return [
    { name: 'bash', arguments: { command: 'cat -n booking/intervals.py tests/test_intervals.py' } },
    { name: 'read_file', arguments: { path: 'booking/merge.py' } },
    { name: 'bash', arguments: { command: test } },
    ...scriptFromPatch(task.workspace, task.goldPatch!),
    {
      name: 'bash',
      arguments: {
        command: [
          "cat >> tests/test_intervals.py <<'EOF'",
          '',
          '',
          'def test_touching_regression():',
          '    assert merge([(1, 3), (3, 5)]) == [(1, 5)]',
          'EOF',
          test,
        ].join('\n'),
      },
    },
    { name: 'submit', arguments: {} },
  ];
}

export type SeededAgentEpisode = { runId: string; runName: string; episodeId: string; task: RepoTask; grading: EpisodeGrading; runtime: string; turns: number };

/** Runs the episode (real sandboxes) and writes its rows; `storeDir` is the app's environment store. */
export async function seedAgentEpisode(sql: Sql, o: { tag: string; dataDir: string; storeDir?: string }): Promise<SeededAgentEpisode> {
  const line = loadRepoSuite().find((t) => t.id === AGENT_TASK);
  assert(line, `the built-in suite has no ${AGENT_TASK}`);
  const task = resolveRepoTask(line, { baseDir: REPO_SUITE_DIR });
  // a data dir of its own: the manager sweeps dead sandboxes of its data dir, never the app's
  const managerDir = path.join(o.dataDir, 'agent-episode-seeder');
  fs.mkdirSync(managerDir, { recursive: true });
  const manager = new SandboxManager({ dataDir: managerDir, storeDir: o.storeDir ?? storeDirFor(o.dataDir), runtime: runtimeOptions(parseSettings({})) });
  const t0 = new Date();
  let r;
  try {
    ensureBuiltInEnvironment(task.environment, manager.storeDir);
    r = await runAgentEpisode<RepoGrade>({
      manager,
      task,
      env: task.environment,
      runtime: 'bwrap',
      limits: episodeSandboxLimits,
      policy: new ScriptedPolicy(agentScript(task)),
      renderer: new ByteTemplateRenderer(),
      maxTurns: 20,
      timeBudgetMs: 120_000,
      diffEachTurn: true,
      grade: (t, patch) => gradeRepoTask(manager, t, patch, { runtime: 'bwrap', limits: episodeSandboxLimits }),
    });
  } finally {
    await manager.close();
  }
  assert(r.grade && r.patch !== null && r.runtime, `the seeded agent episode did not get graded: ${r.end} ${r.error ?? ''}`);
  const grading: EpisodeGrading = { ...r.grade, patch: r.patch, binarySkipped: r.binarySkipped, end: r.end };

  const suiteName = `e2e-repo-${o.tag}`;
  const [suite] = await sql`insert into task_suites (name, description, source) values (${suiteName}, 'seeded by e2e (agent episode)', 'import') returning id`;
  assert(suite, 'no suite');
  const [taskRow] = await sql`
    insert into tasks (suite_id, external_id, language, prompt, entry_point, tests, split, environment_name, kind)
    values (${suite.id}, ${task.id}, ${task.language}, ${task.problemStatement}, '', ${sql.json({ kind: 'repo' })}, ${line.split ?? 'train'}, ${task.environment}, 'repo')
    returning id`;
  assert(taskRow, 'no task');
  const files = task.workspace as Parameters<typeof sql.json>[0];
  await sql`
    insert into repo_workspaces (sha256, files, file_count, total_bytes)
    values (${task.workspaceSha256}, ${sql.json(files)}, ${Object.keys(task.workspace).length}, ${JSON.stringify(task.workspace).length})
    on conflict (sha256) do nothing`;
  await sql`
    insert into repo_tasks (task_id, workspace_sha256, hidden_tests, setup, test_command, fail_to_pass, pass_to_pass, gold_patch, difficulty)
    values (${taskRow.id}, ${task.workspaceSha256}, ${sql.json(task.hiddenTests as Parameters<typeof sql.json>[0])}, ${task.setup}, ${task.testCommand},
      ${sql.json(task.failToPass)}, ${sql.json(task.passToPass)}, ${task.goldPatch}, ${line.difficulty ?? null})`;
  const runName = `agent-run-${o.tag}`;
  const config = { ...defaultRunConfig, suite: suiteName, iterations: 1, groupSize: 1, tasksPerIteration: 1 };
  const [run] = await sql`
    insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, last_reward_mean, started_at, finished_at)
    values (${runName}, 'completed', ${sql.json(config)}, ${suite.id}, 1, 1, 1, ${grading.reward}, ${t0}, now())
    returning id`;
  assert(run, 'no run');
  const [episode] = await sql`
    insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, end_reason, grading, started_at, finished_at)
    values (${run.id}, ${taskRow.id}, 0, 0, 0, 'scored', ${r.runtime}, ${grading.envHash}, ${r.turns.length}, ${r.end},
      ${sql.json(grading as unknown as Parameters<typeof sql.json>[0])}, ${t0}, now())
    returning id`;
  assert(episode, 'no episode');
  // As the RL loop writes them (workers/rl/agent-turn-rows.ts): turn i's slice of the one
  // sequence runs from its assistant span (turn 0 also holds the prompt) to the next turn's;
  // logprobs 0 off the policy's tokens; the observation is the tool messages, each under its name.
  const starts = r.sequence.spans.filter((s) => s.kind === 'assistant').map((s, i) => (i === 0 ? 0 : s.start));
  for (const [i, t] of r.turns.entries()) {
    const [from, to] = [starts[i]!, starts[i + 1] ?? r.sequence.ids.length];
    const calls: StoredToolCall[] = t.toolCalls.map(({ infraError: _infra, ...c }) => c);
    await sql`
      insert into turns (episode_id, index, action, observation, token_ids, loss_mask, logprobs, tool_calls, workspace_diff)
      values (${episode.id}, ${i}, ${t.assistant}, ${calls.map((c) => `[${c.name || 'error'}]\n${c.output}`).join('\n')},
        ${sql.json(r.sequence.ids.slice(from, to))}, ${sql.json(r.sequence.lossMask.slice(from, to))}, ${sql.json(r.sequence.logprobs.slice(from, to).map((l) => l ?? 0))},
        ${sql.json(calls as unknown as Parameters<typeof sql.json>[0])}, ${t.diffSoFar ?? null})`;
  }
  if (grading.reward !== null) {
    await sql`
      insert into rewards (episode_id, value, components, env_hash, harness_version)
      values (${episode.id}, ${grading.reward}, ${sql.json(grading.components)}, ${grading.envHash}, 'repo-grader (seeded by e2e)')`;
  }
  return { runId: run.id as string, runName, episodeId: episode.id as string, task, grading, runtime: r.runtime, turns: r.turns.length };
}

/**
 * An input/output episode whose turns recorded each check's result (turns.tests), and one
 * older turn that did not (its table is derived from the feedback line).
 */
export async function seedIoEpisodeWithTests(sql: Sql, tag: string) {
  const [suite] = await sql`insert into task_suites (name, description, source) values (${`e2e-io-tests-${tag}`}, 'seeded by e2e', 'import') returning id`;
  assert(suite, 'no suite');
  const [task] = await sql`
    insert into tasks (suite_id, external_id, language, prompt, entry_point, tests)
    values (${suite.id}, 'add-three', 'python', 'def add(a, b):\n    """Return the sum of a and b."""\n', 'add',
      ${sql.json({
        kind: 'io',
        cases: [
          { input: [2, 3], expected: 5 },
          { input: [1, 1], expected: 2 },
          { input: [0, -4], expected: -4 },
        ],
      })})
    returning id`;
  assert(task, 'no task');
  const [run] = await sql`
    insert into runs (name, status, config, suite_id, current_iteration, episodes_total, episodes_done, started_at, finished_at)
    values (${`io-tests-run-${tag}`}, 'completed', ${sql.json({ ...defaultRunConfig, suite: `e2e-io-tests-${tag}` })}, ${suite.id}, 1, 1, 1, now() - interval '2 minutes', now())
    returning id`;
  assert(run, 'no run');
  const [ep] = await sql`
    insert into episodes (run_id, task_id, iteration, group_index, sample_index, status, runtime, env_hash, turns_count, end_reason, started_at, finished_at)
    values (${run.id}, ${task.id}, 0, 0, 0, 'scored', 'bwrap', 'sha256:io-tests', 3, 'solved', now() - interval '1 minute', now()) returning id`;
  assert(ep, 'no episode');
  const t1 = [
    { index: 0, passed: false, ms: 0.4, detail: 'expected 5, got -1' },
    { index: 1, passed: true, ms: 0.2, detail: 'returned 0' },
    { index: 2, passed: false, ms: 0.3, detail: 'expected -4, got 4' },
  ];
  const t2 = [
    { index: 0, passed: true, ms: 0.3, detail: 'returned 5' },
    { index: 1, passed: true, ms: 0.2, detail: 'returned 2' },
    { index: 2, passed: true, ms: 0.2, detail: 'returned -4' },
  ];
  await sql`insert into turns (episode_id, index, action, observation, stdout, stderr, exit_code, exec_status, tests) values
    (${ep.id}, 0, ${'    return a * b'}, '0/3 passed; returned 6', '', '', 0, 'ok', null),
    (${ep.id}, 1, ${'    return a - b'}, '1/3 passed; expected 5, got -1', 'trying', '', 0, 'ok', ${sql.json(t1)}),
    (${ep.id}, 2, ${'    return a + b'}, '3/3 passed', '', '', 0, 'ok', ${sql.json(t2)})`;
  await sql`insert into rewards (episode_id, value, components, env_hash, harness_version)
    values (${ep.id}, 1, ${sql.json({ passRate: 1, testsPassed: 3, testsTotal: 3, style: 1, efficiency: 1 })}, 'sha256:io-tests', 'harness-e2e')`;
  return { episodeId: ep.id as string, t1, t2 };
}
