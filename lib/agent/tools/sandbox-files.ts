import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';

/**
 * Files of the workspace, through the sandbox. `putFile`/`getFile` work on the host side and
 * never follow a link the sandbox planted (lib/sandbox/beneath.ts), so they are both the
 * fast path and the symlink guard. microVM sandboxes refuse `getFile` (the scratch is the
 * guest's disk); there a read is an exec of `cat` after the guest's `realpath` has confirmed
 * the file lies inside the workspace. `putFile` works everywhere (a microVM gets the file at
 * its next exec).
 */
export class SandboxFileError extends Error {}

const MAX_READ_BYTES = 16 * 1024 * 1024;

function friendly(p: string, e: unknown): SandboxFileError {
  const msg = (e as Error).message;
  if (/ENOENT/.test(msg)) return new SandboxFileError(`no such file: ${p}`);
  if (/EISDIR|not a regular file/.test(msg)) return new SandboxFileError(`${p} is not a regular file`);
  return new SandboxFileError(msg);
}

export async function readSandboxFile(sb: Sandbox, workspaceDir: string, abs: string, shown: string): Promise<Buffer> {
  if (sb.runtimeName === 'microvm') {
    const script = 'p=$(realpath -e -- "$1") || exit 2; case "$p" in "$2"/*) exec cat -- "$p";; *) echo "outside the workspace" >&2; exit 3;; esac';
    const r = await sb.exec(['sh', '-c', script, 'sh', abs, workspaceDir], { timeoutMs: 30_000 });
    if (r.status === 'sandbox_error' || r.status === 'env_mismatch') throw new Error(r.error ?? r.status);
    if (r.exitCode === 2) throw new SandboxFileError(`no such file: ${shown}`);
    if (r.exitCode === 3) throw new SandboxFileError(`${shown} leads outside the workspace (a symbolic link)`);
    if (r.status !== 'ok') throw new SandboxFileError(`cannot read ${shown}: ${r.stderr.trim() || r.status}`);
    return Buffer.from(r.stdout, 'utf8');
  }
  try {
    const data = sb.getFile(abs);
    if (data.length > MAX_READ_BYTES) throw new SandboxFileError(`${shown} is larger than ${MAX_READ_BYTES} bytes`);
    return data;
  } catch (e) {
    throw friendly(shown, e);
  }
}

export function writeSandboxFile(sb: Sandbox, abs: string, shown: string, data: string | Buffer): void {
  try {
    sb.putFile(abs, data);
  } catch (e) {
    throw friendly(shown, e);
  }
}
