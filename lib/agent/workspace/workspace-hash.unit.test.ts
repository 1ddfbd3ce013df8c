import { describe, expect, it } from 'vitest';
import type { WorkspaceFiles } from '@/core/repo-tasks';
import { workspaceSha256 } from './workspace-hash';

describe('workspaceSha256', () => {
  const files = { 'src/a.py': 'x = 1\n', 'README.md': '# hi\n' };

  it('is a sha256: content hash, independent of key order and of text vs base64', () => {
    const h = workspaceSha256(files);
    expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(workspaceSha256({ 'README.md': '# hi\n', 'src/a.py': 'x = 1\n' })).toBe(h);
    expect(workspaceSha256({ 'src/a.py': { base64: Buffer.from('x = 1\n').toString('base64') }, 'README.md': '# hi\n' })).toBe(h);
  });

  it('changes with content, path, mode, and an added or removed file', () => {
    const h = workspaceSha256(files);
    const variants: WorkspaceFiles[] = [
      { ...files, 'src/a.py': 'x = 2\n' },
      { 'src/b.py': 'x = 1\n', 'README.md': '# hi\n' },
      { ...files, 'src/a.py': { base64: Buffer.from('x = 1\n').toString('base64'), executable: true } },
      { ...files, 'new.txt': '' },
      { 'README.md': '# hi\n' },
    ];
    const hashes = variants.map((v) => workspaceSha256(v));
    expect(new Set([h, ...hashes]).size).toBe(variants.length + 1);
  });

  it('cannot be confused by a path holding the manifest separators', () => {
    // two different trees whose naive "path content" concatenations coincide
    expect(workspaceSha256({ 'a b': 'c' })).not.toBe(workspaceSha256({ a: 'b c' }));
    expect(workspaceSha256({})).toMatch(/^sha256:/);
  });
});
