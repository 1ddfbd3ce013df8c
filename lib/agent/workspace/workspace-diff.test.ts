import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkspaceFiles } from '@/core/repo-tasks';
import { applyWorkspacePatch, diffWorkspaces } from './workspace-diff';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function writeTree(files: WorkspaceFiles): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'crucible-wsdiff-'));
  dirs.push(dir);
  for (const [p, f] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), typeof f === 'string' ? f : Buffer.from(f.base64, 'base64'));
    if (typeof f !== 'string' && f.executable) chmodSync(path.join(dir, p), 0o755);
  }
  return dir;
}

const before: WorkspaceFiles = {
  'src/calc.py': 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n',
  'src/old.py': 'gone = True\n',
  'run.sh': '#!/bin/sh\necho hi\n',
  'notes.txt': 'no newline at end',
  'logo.png': { base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString('base64') },
};
const after: WorkspaceFiles = {
  'src/calc.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n',
  'src/new.py': 'fresh = 1\n',
  'run.sh': { base64: Buffer.from('#!/bin/sh\necho hi\n').toString('base64'), executable: true },
  'notes.txt': 'no newline at end, changed',
  'logo.png': { base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9]).toString('base64') },
};

describe('diffWorkspaces', () => {
  const { patch, binarySkipped } = diffWorkspaces(before, after);

  it('writes git-style sections with new/deleted/mode headers and lists binary files', () => {
    expect(patch).toContain('diff --git a/src/calc.py b/src/calc.py');
    expect(patch).toContain('-    return a - b\n+    return a + b');
    expect(patch).toMatch(/diff --git a\/src\/new.py b\/src\/new.py\nnew file mode 100644\n--- \/dev\/null\n\+\+\+ b\/src\/new.py/);
    expect(patch).toMatch(/diff --git a\/src\/old.py b\/src\/old.py\ndeleted file mode 100644/);
    expect(patch).toMatch(/diff --git a\/run.sh b\/run.sh\nold mode 100644\nnew mode 100755/);
    expect(patch).toContain('\\ No newline at end of file');
    expect(patch).not.toContain('logo.png');
    expect(binarySkipped).toEqual(['logo.png']);
    expect(diffWorkspaces(before, before)).toEqual({ patch: '', binarySkipped: [] });
  });

  it('round-trips through applyWorkspacePatch (text files)', () => {
    const { 'logo.png': _b, ...textBefore } = before;
    const { 'logo.png': _a, ...textAfter } = after;
    expect(applyWorkspacePatch(textBefore, diffWorkspaces(textBefore, textAfter).patch)).toEqual(textAfter);
  });

  it('is a patch git itself applies', () => {
    const { 'logo.png': _b, ...textBefore } = before;
    const dir = writeTree(textBefore);
    execFileSync('git', ['init', '-q', dir]);
    const patchFile = path.join(dir, '..', `${path.basename(dir)}.patch`);
    writeFileSync(patchFile, patch);
    dirs.push(patchFile);
    execFileSync('git', ['-C', dir, 'apply', '--exclude=logo.png', patchFile]);
    expect(readFileSync(path.join(dir, 'src/calc.py'), 'utf8')).toBe(after['src/calc.py']);
    expect(readFileSync(path.join(dir, 'src/new.py'), 'utf8')).toBe('fresh = 1\n');
    expect(existsSync(path.join(dir, 'src/old.py'))).toBe(false);
    expect(statSync(path.join(dir, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('no newline at end, changed');
  });
});

describe('applyWorkspacePatch', () => {
  it('applies what `git diff` writes (new file, deletion, change)', () => {
    const dir = writeTree({ 'a.py': 'one\ntwo\nthree\n', 'b.py': 'bye\n' });
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    writeFileSync(path.join(dir, 'a.py'), 'one\n2\nthree\n');
    rmSync(path.join(dir, 'b.py'));
    mkdirSync(path.join(dir, 'tests'));
    writeFileSync(path.join(dir, 'tests/test_a.py'), 'def test_a():\n    pass\n');
    git('add', '-A');
    const patch = git('diff', '--cached');
    expect(applyWorkspacePatch({ 'a.py': 'one\ntwo\nthree\n', 'b.py': 'bye\n' }, patch)).toEqual({
      'a.py': 'one\n2\nthree\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
  });

  it('applies a plain ---/+++ diff without git headers, and leaves its input alone', () => {
    const files = { 'x.py': 'a\nb\nc\n' };
    const out = applyWorkspacePatch(files, '--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
    expect(out).toEqual({ 'x.py': 'a\nB\nc\n' });
    expect(files).toEqual({ 'x.py': 'a\nb\nc\n' });
    expect(applyWorkspacePatch(files, '')).toEqual(files);
  });

  it('names the file and the hunk that does not apply', () => {
    const files = { 'x.py': 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n' };
    const patch = '--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -9,3 +9,3 @@\n i\n-NOPE\n+J\n k\n';
    expect(() => applyWorkspacePatch(files, patch)).toThrow(/x\.py: hunk 2 \(@@ -9,3 \+9,3 @@\) does not match/);
    expect(() => applyWorkspacePatch(files, '--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n')).toThrow(/changes y\.py, which is not in the workspace/);
    expect(() => applyWorkspacePatch(files, '--- /dev/null\n+++ b/x.py\n@@ -0,0 +1 @@\n+a\n')).toThrow(/creates x\.py, which already exists/);
  });

  it('refuses paths that leave the workspace', () => {
    const files = { 'x.py': 'a\n' };
    expect(() => applyWorkspacePatch(files, '--- /dev/null\n+++ b/../evil.py\n@@ -0,0 +1 @@\n+a\n')).toThrow(/"b\/\.\.\/evil\.py".*inside the workspace/);
    expect(() => applyWorkspacePatch(files, '--- /dev/null\n+++ /etc/evil\n@@ -0,0 +1 @@\n+a\n')).toThrow(/"\/etc\/evil"/);
    expect(() => applyWorkspacePatch(files, 'diff --git a/../x b/../x\nnew file mode 100644\n--- /dev/null\n+++ b/../x\n@@ -0,0 +1 @@\n+a\n')).toThrow(
      /inside the workspace/,
    );
  });
});
