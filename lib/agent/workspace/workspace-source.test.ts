import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { materializeWorkspace } from './workspace-source';

const root = mkdtempSync(path.join(tmpdir(), 'crucible-wssrc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), c);
  }
  return dir;
}

const expected = { 'pkg/mod.py': 'x = 1\n', 'tests/test_mod.py': 'def test_x():\n    pass\n' };

describe('materializeWorkspace', () => {
  it('inline files as given, within the caps', () => {
    expect(materializeWorkspace({ files: expected }, root)).toEqual(expected);
    expect(() => materializeWorkspace({ files: expected }, root, { maxFiles: 1, maxBytes: 1e6 })).toThrow(/more than 1 files/);
  });

  it('a directory relative to baseDir: .git and caches skipped, executables kept, symlinks inside followed, outside refused', () => {
    const dir = tree('d1', { ...expected, '.git/HEAD': 'ref\n', 'pkg/__pycache__/mod.cpython-311.pyc': 'junk', 'run.sh': '#!/bin/sh\n' });
    chmodSync(path.join(dir, 'run.sh'), 0o755);
    symlinkSync('pkg/mod.py', path.join(dir, 'alias.py'));
    const files = materializeWorkspace({ dir: 'd1' }, root);
    expect(files).toEqual({ ...expected, 'alias.py': 'x = 1\n', 'run.sh': { base64: Buffer.from('#!/bin/sh\n').toString('base64'), executable: true } });

    const evil = tree('d2', expected);
    symlinkSync('/etc/passwd', path.join(evil, 'passwd'));
    expect(() => materializeWorkspace({ dir: evil }, root)).toThrow(/passwd is a symbolic link to \/etc\/passwd, outside the workspace/);
    expect(() => materializeWorkspace({ dir: 'missing' }, root)).toThrow(/not a readable directory/);
    expect(() => materializeWorkspace({ dir: 'd1' }, root, { maxFiles: 100, maxBytes: 10 })).toThrow(/more than 10 bytes/);
  });

  it('a tarball, checked against the caps from its listing before extraction', () => {
    const dir = tree('t1', expected);
    execFileSync('tar', ['-czf', path.join(root, 't1.tar.gz'), '-C', dir, '.']);
    expect(materializeWorkspace({ tarball: 't1.tar.gz' }, root)).toEqual(expected);
    expect(() => materializeWorkspace({ tarball: 't1.tar.gz' }, root, { maxFiles: 1, maxBytes: 1e6 })).toThrow(/tarball \S*t1.tar.gz has more than 1 files/);
    expect(() => materializeWorkspace({ tarball: 'nope.tar' }, root)).toThrow(/cannot be read/);
    // a member linking outside is refused once extracted
    const bad = tree('t2', expected);
    symlinkSync('/etc/hostname', path.join(bad, 'host'));
    execFileSync('tar', ['-cf', path.join(root, 't2.tar'), '-C', bad, '.']);
    expect(() => materializeWorkspace({ tarball: 't2.tar' }, root)).toThrow(/host is a symbolic link to .*outside the workspace/);
  });

  it('a commit of a local git repository, exactly (export-ignore does not drop tests)', () => {
    const dir = tree('g1', { ...expected, '.gitattributes': 'tests export-ignore\n' });
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { encoding: 'utf8' }).trim();
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'one');
    const first = git('rev-parse', 'HEAD');
    writeFileSync(path.join(dir, 'pkg/mod.py'), 'x = 2\n');
    git('commit', '-qam', 'two');
    expect(materializeWorkspace({ git: 'g1', commit: first }, root)).toEqual({ ...expected, '.gitattributes': 'tests export-ignore\n' });
    expect(materializeWorkspace({ git: 'g1', commit: git('rev-parse', 'HEAD').slice(0, 12) }, root)['pkg/mod.py']).toBe('x = 2\n');
    expect(() => materializeWorkspace({ git: 'g1', commit: 'deadbeefdeadbeef' }, root)).toThrow(/commit deadbeefdeadbeef is not in the repository/);
    expect(() => materializeWorkspace({ git: 'd2', commit: first }, root)).toThrow(/d2 is not a git repository/);
  });
});
