import path from 'node:path';

/**
 * An agent's path argument resolved inside the workspace directory (a path in the
 * sandbox, e.g. /work/repo): relative paths are taken from the workspace, absolute ones must
 * already be inside it, and `..` may not climb out. Links are refused later, where the file is
 * opened (the sandbox's getFile/putFile never follow one), so a planted
 * `src -> /etc` cannot lead out either.
 */
export function resolveWorkspacePath(workspaceDir: string, p: string): { ok: true; path: string; relative: string } | { ok: false; error: string } {
  if (p.includes('\0')) return { ok: false, error: 'path contains a NUL byte' };
  const abs = path.posix.resolve(workspaceDir, p);
  const rel = path.posix.relative(workspaceDir, abs);
  if (rel === '' || rel === '.') return { ok: false, error: `${p} is the workspace directory itself; give a file path inside it (e.g. "src/app.py")` };
  if (rel.startsWith('..') || path.posix.isAbsolute(rel))
    return { ok: false, error: `${p} is outside the workspace ${workspaceDir}; use a path inside it (relative paths start there)` };
  return { ok: true, path: abs, relative: rel };
}
