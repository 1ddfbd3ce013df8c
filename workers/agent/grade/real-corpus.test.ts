import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoGrade, RepoTask } from '@/core/repo-tasks';
import { loadRealCorpus, REAL_CORPUS_DIR, type RealCorpusInstance } from '@/workers/agent/suite/real-corpus';
import { resolveRepoTask } from '@/workers/agent/workspace/resolve-task';
import { gradeTestManager } from './grade-fixtures';
import { gradeRepoTask } from './grade-repo-task';

// The real-code corpus (tasks/real-corpus, issue 32) through the real grader in real sandboxes
// (the `repo` environment): each instance is an upstream fix, so its gold patch must score 1
// and its untouched base 0, with every FAIL_TO_PASS test failing there and PASS_TO_PASS intact.
// Every grade runs once, a few at a time (2 cores), before the per-instance checks.

// One grade at a time: the host admits one sandbox of the default limits (2 cores, 30% reserve).
// A grade refused for the host quota (another test file's sandboxes) waits and tries again.
const CONCURRENCY = 1;
const QUOTA_RETRIES = 30;
const present = fs.existsSync(REAL_CORPUS_DIR);
const corpus: RealCorpusInstance[] = present ? loadRealCorpus() : [];

describe.skipIf(!present)('real-code corpus: instances', () => {
  it('holds the issue’s mix of instances, each with provenance and modest test lists', () => {
    const byLang = (l: string) => corpus.filter((c) => c.line.language === l).length;
    expect(corpus.length).toBeGreaterThanOrEqual(20);
    expect(byLang('python')).toBeGreaterThanOrEqual(14);
    expect(byLang('javascript')).toBeGreaterThanOrEqual(5);
    expect(new Set(corpus.map((c) => c.provenance.repository)).size).toBeGreaterThanOrEqual(5);
    for (const { line, provenance } of corpus) {
      expect(line.FAIL_TO_PASS.length + line.PASS_TO_PASS.length, line.id).toBeLessThanOrEqual(25);
      expect(line.gold_patch, line.id).toMatch(/^diff --git /);
      expect(provenance.base_commit, line.id).not.toBe(provenance.fix_commit);
    }
  });
});

type Outcome = { gold: RepoGrade; untouched: RepoGrade };

async function grade(manager: Parameters<typeof gradeRepoTask>[0], task: RepoTask, patch: string): Promise<RepoGrade> {
  for (let i = 0; ; i++) {
    const g = await gradeRepoTask(manager, task, patch);
    if (g.status !== 'infra_error' || !/host quota exceeded/.test(g.error ?? '') || i >= QUOTA_RETRIES) return g;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

describe.skipIf(!present)('real-code corpus through the grader', () => {
  const results = new Map<string, Outcome | Error>();
  let cleanup: (() => Promise<void>) | undefined;
  afterAll(async () => cleanup?.());

  beforeAll(async () => {
    // made here, not while collecting, so a checkout without the corpus builds no environment
    const made = gradeTestManager('real-corpus');
    const manager = made.manager;
    cleanup = made.cleanup;
    const queue = [...corpus];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        try {
          const task: RepoTask = resolveRepoTask(next.line, { baseDir: '/' });
          const gold = await grade(manager, task, task.goldPatch!);
          const untouched = await grade(manager, task, '');
          results.set(next.line.id, { gold, untouched });
        } catch (e) {
          results.set(next.line.id, e as Error);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }, 900_000);

  const failing = (g: RepoGrade) => g.tests.filter((t) => !t.passed).map((t) => `${t.name}: ${t.outcome} ${t.detail ?? ''}`.slice(0, 600));
  const summary = (g: RepoGrade) => JSON.stringify({ status: g.status, reward: g.reward, error: g.error, rejectedPaths: g.rejectedPaths, failing: failing(g) });

  for (const { line } of corpus) {
    it(`${line.id}: gold patch → 1, untouched → 0 on FAIL_TO_PASS`, () => {
      const r = results.get(line.id);
      if (r instanceof Error) throw r;
      expect(r, 'graded in beforeAll').toBeDefined();
      const { gold, untouched } = r!;
      const both = `gold: ${summary(gold)}; untouched: ${summary(untouched)}`;
      expect(gold.error ?? null, both).toBeNull();
      expect(gold, both).toMatchObject({ status: 'graded', reward: 1, patchApplied: true, rejectedPaths: [] });
      expect(untouched, both).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1 } });
      for (const id of line.FAIL_TO_PASS) expect(untouched.tests.find((t) => t.name === id)?.passed, id).toBe(false);
    });
  }
});
