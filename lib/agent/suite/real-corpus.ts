import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CrucibleRepoTaskLine } from '@/core/repo-tasks';
import { loadRepoTaskDir, RepoSuiteError } from './repo-suite';

/**
 * A corpus of SWE-bench-style instances taken from real public repositories' history
 * (tasks/real-corpus, issue 32): one directory per instance laid out like tasks/repo-suite
 * (task.json, workspace/ = the upstream fix's parent commit trimmed to what the tests need,
 * hidden_tests/ = the test files as the fix left them, gold.patch = the fix's non-test diff),
 * plus `provenance` in task.json: where the instance comes from and under which license.
 * `loadRealCorpus(dir)` reads another copy of the corpus.
 */

const here = import.meta.dirname as string | undefined;
export const REAL_CORPUS_DIR = here ? path.resolve(here, '../../../tasks/real-corpus') : path.resolve('tasks/real-corpus');

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-hex git commit id');

/** Where an instance comes from; the workspace keeps the upstream LICENSE file. */
export const realCorpusProvenance = z
  .object({
    repository: z.string().url(),
    fix_commit: sha,
    base_commit: sha,
    license: z.string().min(1),
    upstream_subject: z.string().min(1),
    fix_date: z.string().optional(),
    test_files: z.array(z.string()).optional(),
    gold_files: z.array(z.string()).optional(),
    /** non-test files the fix changed that the trimmed workspace does not hold (docs, changelogs) */
    left_out_of_gold: z.array(z.string()).optional(),
    /** links in the base tree written as the files they point to (task directories hold no links) */
    symlinks_materialized: z.array(z.string()).optional(),
    /** any change made to upstream files so the tests run in the grading environment */
    workspace_edits: z.string().optional(),
  })
  .strict();
export type RealCorpusProvenance = z.output<typeof realCorpusProvenance>;

export type RealCorpusInstance = { line: CrucibleRepoTaskLine; provenance: RealCorpusProvenance };

/** One instance directory: the crucible-repo line and its provenance. */
export function loadRealCorpusInstance(taskDir: string): RealCorpusInstance {
  const { line, extra } = loadRepoTaskDir(taskDir, ['provenance']);
  const where = path.join(taskDir, 'task.json');
  if (!('provenance' in extra)) throw new RepoSuiteError(`${where}: provenance missing (repository, fix_commit, base_commit, license)`);
  const parsed = realCorpusProvenance.safeParse(extra.provenance);
  if (!parsed.success)
    throw new RepoSuiteError(`${where}: provenance: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ')}`);
  if (!fs.readdirSync(path.join(taskDir, 'workspace')).some((f) => /^(LICEN[CS]E|COPYING)/i.test(f)))
    throw new RepoSuiteError(`${path.join(taskDir, 'workspace')}: the upstream LICENSE file must be kept at the workspace root`);
  return { line, provenance: parsed.data };
}

/** Every instance, sorted by id. */
export function loadRealCorpus(dir: string = REAL_CORPUS_DIR): RealCorpusInstance[] {
  if (!fs.existsSync(dir)) throw new RepoSuiteError(`${dir}: no such directory (the real-code corpus lives in tasks/real-corpus)`);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => loadRealCorpusInstance(path.join(dir, name)));
}
