import { createHash } from 'node:crypto';
import type { WorkspaceFiles } from '@/core/repo-tasks';
import { fileBytes, fileExecutable } from './workspace-file';

/**
 * The workspace's content hash, stored with every reward like an environment hash: sha256
 * over a canonical manifest, one line per file in byte order of its path —
 * `f <mode> <sha256 of content> <path>` — so it is the same however the task wrote the
 * files (text or base64) and in whatever order.
 */
export function workspaceSha256(files: WorkspaceFiles): string {
  const paths = Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const h = createHash('sha256');
  for (const p of paths) {
    const f = files[p]!;
    const content = createHash('sha256').update(fileBytes(f)).digest('hex');
    h.update(`f ${fileExecutable(f) ? '755' : '644'} ${content} ${p}\n`);
  }
  return `sha256:${h.digest('hex')}`;
}
