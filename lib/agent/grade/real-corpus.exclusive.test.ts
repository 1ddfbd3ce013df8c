import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoGrade, RepoTask } from '@/core/repo-tasks';
import { loadRealCorpus, REAL_CORPUS_DIR, type RealCorpusInstance } from '@/lib/agent/suite/real-corpus';
import { resolveRepoTask } from '@/lib/agent/workspace/resolve-task';
import { gradeTestManager } from './grade-fixtures';
import { gradeRepoTask } from './grade-repo-task';
import { edit } from './grade-fixtures';
import { fileBytes } from '../workspace/workspace-file';
import { saturate } from '@/test/cpu-hog';

// The real-code corpus (tasks/real-corpus, issue 32) through the real grader in real sandboxes
// (the `repo` environment): each instance is an upstream fix, so its gold patch must score 1
// and its untouched base 0, with every FAIL_TO_PASS test failing there and PASS_TO_PASS intact.
// The generic attacks (fixtures/attacks/generic: an answer table read from the tests, values
// equal to everything, exiting at import, assertions made no-ops) applied to each untouched
// base never earn an unheld 1. And the golds and bases score the same again with every core
// saturated by busy loops, a busy host retried as the system retries an infrastructure
// failure. Every grade runs once, before the per-instance checks.

// Two grades at a time, of 0.7 of a core each: the host admits one sandbox of the default limits (2 cores, 30% reserve).
// A grade refused for the host quota (another test file's sandboxes) waits and tries again.
const CONCURRENCY = 2;
/** two grades fit the host quota at once (2 cores less its 30% reserve) */
const LIMITS = { cpus: 0.7, memoryMb: 2048, diskMb: 8192 };
const QUOTA_RETRIES = 150;
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

type Outcome = { gold: RepoGrade; untouched: RepoGrade; attacks: Record<string, RepoGrade>; busy?: { gold: RepoGrade; untouched: RepoGrade } };

/** A busy host's grade is an infrastructure failure the system retries (at most this often). */
const BUSY_RETRIES = 3;

async function grade(manager: Parameters<typeof gradeRepoTask>[0], task: RepoTask, patch: string): Promise<RepoGrade> {
  for (let i = 0, busy = 0; ; i++) {
    const g = await gradeRepoTask(manager, task, patch, { limits: LIMITS });
    if (g.status === 'infra_error' && /the host was too busy/.test(g.error ?? '') && busy++ < BUSY_RETRIES) continue;
    if (g.status !== 'infra_error' || !/host quota exceeded/.test(g.error ?? '') || i >= QUOTA_RETRIES) return g;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

const GENERIC = path.join(import.meta.dirname, 'fixtures/attacks/generic');
const ATTACKS = {
  python: ['py-answer-table.py', 'py-eq-everything.py', 'py-exit-at-import.py'],
  javascript: ['js-exit-at-import.js', 'js-assert-noop.js'],
} as const;

/** An attack appended to the module the upstream fix changed, on the untouched base. */
function attackPatch(task: RepoTask, inst: RealCorpusInstance, file: string): string {
  const target = inst.provenance.gold_files?.[0];
  if (!target) throw new Error(`${inst.line.id}: provenance names no gold file to attack`);
  const base = task.workspace[target];
  if (base === undefined) throw new Error(`${inst.line.id}: ${target} is not in the workspace`);
  return edit(task.workspace, { [target]: `${fileBytes(base).toString('utf8')}${fs.readFileSync(path.join(GENERIC, file), 'utf8')}` });
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
    const run = async (each: (inst: RealCorpusInstance, task: RepoTask) => Promise<void>) => {
      const queue = [...corpus];
      const worker = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          try {
            await each(next, resolveRepoTask(next.line, { baseDir: '/' }));
          } catch (e) {
            results.set(next.line.id, e as Error);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    await run(async (inst, task) => {
      const gold = await grade(manager, task, task.goldPatch!);
      const untouched = await grade(manager, task, '');
      const attacks: Record<string, RepoGrade> = {};
      for (const file of ATTACKS[task.language]) attacks[file] = await grade(manager, task, attackPatch(task, inst, file));
      results.set(inst.line.id, { gold, untouched, attacks });
    });
    const hog = saturate();
    try {
      await run(async (inst, task) => {
        const r = results.get(inst.line.id);
        if (r instanceof Error || !r) return;
        r.busy = { gold: await grade(manager, task, task.goldPatch!), untouched: await grade(manager, task, '') };
      });
    } finally {
      hog.stop();
    }
  }, 2_400_000);

  const failing = (g: RepoGrade) => g.tests.filter((t) => !t.passed).map((t) => `${t.name}: ${t.outcome} ${t.detail ?? ''}`.slice(0, 600));
  const summary = (g: RepoGrade) =>
    JSON.stringify({ status: g.status, reward: g.reward, error: g.error, suspect: g.suspect, rejectedPaths: g.rejectedPaths, failing: failing(g) });

  for (const { line } of corpus) {
    it(`${line.id}: gold patch → 1, untouched → 0 on FAIL_TO_PASS`, () => {
      const r = results.get(line.id);
      if (r instanceof Error) throw r;
      expect(r, 'graded in beforeAll').toBeDefined();
      const { gold, untouched } = r!;
      const both = `gold: ${summary(gold)}; untouched: ${summary(untouched)}`;
      expect(gold.error ?? null, both).toBeNull();
      expect(gold, both).toMatchObject({ status: 'graded', reward: 1, patchApplied: true, rejectedPaths: [] });
      // honest code is not held for review either
      expect(gold.suspect ?? [], both).toEqual([]);
      expect(untouched, both).toMatchObject({ status: 'graded', reward: 0, components: { f2p: 0, p2p: 1 } });
      for (const id of line.FAIL_TO_PASS) expect(untouched.tests.find((t) => t.name === id)?.passed, id).toBe(false);
    });

    it(`${line.id}: the generic attacks on the untouched base never earn an unheld 1`, () => {
      const r = results.get(line.id);
      if (r instanceof Error) throw r;
      for (const [file, g] of Object.entries(r!.attacks)) {
        expect(g.status, `${file}: ${summary(g)}`).toBe('graded');
        if (g.reward !== 0) expect(g.suspect ?? [], `${file}: ${summary(g)}`).not.toEqual([]);
      }
    });

    it(`${line.id}: gold and untouched score the same on a saturated host`, () => {
      const r = results.get(line.id);
      if (r instanceof Error) throw r;
      const same = (g: RepoGrade) => ({ status: g.status, reward: g.reward, passed: g.tests.filter((t) => t.passed).map((t) => t.name) });
      expect(same(r!.busy!.gold), summary(r!.busy!.gold)).toEqual(same(r!.gold));
      expect(same(r!.busy!.untouched), summary(r!.busy!.untouched)).toEqual(same(r!.untouched));
    });
  }
});
