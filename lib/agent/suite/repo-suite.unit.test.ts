import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyWorkspacePatch } from '@/lib/agent/workspace/workspace-diff';
import { loadRepoSuite, loadRepoTask, readTree } from './repo-suite';

const suite = loadRepoSuite();

describe('the built-in repository suite', () => {
  it('has at least 40 tasks in both languages, both splits and all difficulties, with unique ids', () => {
    expect(suite.length).toBeGreaterThanOrEqual(40);
    const by = (key: 'language' | 'split' | 'difficulty') =>
      suite.reduce<Record<string, number>>((m, t) => ({ ...m, [String(t[key])]: (m[String(t[key])] ?? 0) + 1 }), {});
    expect(by('language')).toEqual({ python: 20, javascript: 20 });
    expect(Object.keys(by('split')).sort()).toEqual(['heldout', 'train']);
    for (const lang of ['python', 'javascript'])
      expect(new Set(suite.filter((t) => t.language === lang).map((t) => t.split))).toEqual(new Set(['train', 'heldout']));
    expect(by('difficulty')).toEqual({ easy: 15, medium: 15, hard: 10 });
    expect(new Set(suite.map((t) => t.id)).size).toBe(suite.length);
  });

  it('every gold patch applies to its pristine workspace and changes it', () => {
    for (const t of suite) {
      const files = (t.workspace as { files: Record<string, string> }).files;
      const patched = applyWorkspacePatch(files, t.gold_patch!);
      expect(patched, t.id).not.toEqual(files);
    }
  });

  it('test ids follow the conventions and name files that exist at grading', () => {
    for (const t of suite) {
      const files = { ...(t.workspace as { files: Record<string, string> }).files, ...t.hidden_tests };
      expect(Object.keys(t.hidden_tests).length, t.id).toBeGreaterThan(0);
      expect(t.PASS_TO_PASS.length, t.id).toBeGreaterThan(0);
      for (const id of [...t.FAIL_TO_PASS, ...t.PASS_TO_PASS]) {
        const file = id.split('::')[0]!;
        expect(files[file], `${t.id}: ${id}`).toBeDefined();
        expect(file, `${t.id}: ${id}`).toMatch(t.language === 'python' ? /^tests\/test_\w+\.py$/ : /^test\/[\w-]+\.test\.m?js$/);
      }
      expect(
        t.FAIL_TO_PASS.filter((id) => t.PASS_TO_PASS.includes(id)),
        t.id,
      ).toEqual([]);
    }
  });

  it('names the task directory and file when a task is broken', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-suite-'));
    try {
      const task = path.join(dir, 'bad-task');
      fs.mkdirSync(path.join(task, 'workspace'), { recursive: true });
      fs.writeFileSync(path.join(task, 'workspace', 'a.py'), 'x = 1\n');
      fs.writeFileSync(path.join(task, 'gold.patch'), '');
      fs.writeFileSync(path.join(task, 'task.json'), '{"id": "bad-task", "language": "python"');
      expect(() => loadRepoTask(task)).toThrow(`${path.join(task, 'task.json')}: not valid JSON`);
      fs.writeFileSync(path.join(task, 'task.json'), JSON.stringify({ id: 'bad-task', language: 'python', problem_statement: 'x', FAIL_TO_PASS: [] }));
      expect(() => loadRepoTask(task)).toThrow(/bad-task\/task.json: FAIL_TO_PASS: a task needs at least one FAIL_TO_PASS test/);
      fs.writeFileSync(path.join(task, 'task.json'), JSON.stringify({ id: 'other', language: 'python', problem_statement: 'x', FAIL_TO_PASS: ['t.py::a'] }));
      expect(() => loadRepoTask(task)).toThrow(/id "other" must equal the directory name "bad-task"/);
      fs.rmSync(path.join(task, 'gold.patch'));
      fs.writeFileSync(path.join(task, 'task.json'), JSON.stringify({ id: 'bad-task', language: 'python', problem_statement: 'x', FAIL_TO_PASS: ['t.py::a'] }));
      expect(() => loadRepoTask(task)).toThrow(/bad-task\/gold.patch: missing/);
      expect(readTree(path.join(task, 'workspace'))).toEqual({ 'a.py': 'x = 1\n' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
