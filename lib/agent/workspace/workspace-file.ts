import type { WorkspaceFile } from '@/core/repo-tasks';

/**
 * One workspace file's bytes and mode, whichever way the task wrote it (UTF-8 text, or base64
 * with an executable bit). Hashing, diffing and writing into a sandbox all go through here so
 * they agree on what a file is.
 */

export function fileBytes(f: WorkspaceFile): Buffer {
  return typeof f === 'string' ? Buffer.from(f, 'utf8') : Buffer.from(f.base64, 'base64');
}

export function fileExecutable(f: WorkspaceFile): boolean {
  return typeof f !== 'string' && f.executable === true;
}

/** Text for diffing: valid UTF-8 without NUL bytes; anything else is binary (listed, never diffed). */
export function fileText(f: WorkspaceFile): string | null {
  if (typeof f === 'string') return f.includes('\0') ? null : f;
  const bytes = Buffer.from(f.base64, 'base64');
  if (bytes.includes(0)) return null;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

/** The canonical form of some bytes: a plain string for non-executable UTF-8 text, else base64. */
export function makeFile(bytes: Buffer, executable: boolean): WorkspaceFile {
  if (!executable && !bytes.includes(0)) {
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) return text;
  }
  return executable ? { base64: bytes.toString('base64'), executable: true } : { base64: bytes.toString('base64') };
}

/** Thrown for a workspace that cannot be read, diffed or patched; the message says which file and why. */
export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
}
