import type { WorkspaceFiles } from '@/core/repo-tasks';
import type { Sandbox } from '@/workers/sandbox/runtimes/sandbox-runtime';
import { fileBytes, fileExecutable, makeFile } from '../workspace/workspace-file';
import { DEFAULT_WORKSPACE_CAPS, type WorkspaceCaps } from '../workspace/workspace-source';

/**
 * A task's workspace inside an episode's sandbox: written in through putFile (host side,
 * never through a link), read back as files for the diff. Caches the tools leave behind
 * (`__pycache__`, `.pytest_cache`) are not part of the workspace.
 */
export const SANDBOX_WORKSPACE_DIR = '/work/repo';

export class WorkspaceSandboxError extends Error {}

/**
 * The agent left a workspace that cannot be read back: entries it made unreadable, more
 * files or bytes than the caps. The agent's doing, so the episode is scored 0 with this as
 * the reason, never masked as an infrastructure failure (which would spare it its 0).
 */
export class WorkspaceUnreadableError extends Error {}

/**
 * Directories first, by the sandbox's own user (one exec): putFile runs as root on the host and
 * would leave directories it creates owned by root, where the agent could not add files.
 */
export async function writeWorkspace(sb: Sandbox, files: WorkspaceFiles, dir = SANDBOX_WORKSPACE_DIR): Promise<void> {
  const dirs = new Set<string>([dir]);
  for (const p of Object.keys(files)) {
    const parts = p.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(`${dir}/${parts.slice(0, i).join('/')}`);
  }
  const r = await sb.exec(['mkdir', '-p', '--', ...dirs], { timeoutMs: 60_000 });
  if (r.status !== 'ok') throw new WorkspaceSandboxError(`cannot create the workspace directories: ${r.status} ${r.error ?? r.stderr.trim()}`);
  for (const [p, f] of Object.entries(files)) sb.putFile(`${dir}/${p}`, fileBytes(f), fileExecutable(f) ? 0o755 : 0o644);
}

const LIST = 'find . \\( -name __pycache__ -o -name .pytest_cache \\) -prune -o -type f \\( -perm -u+x -printf "x %s %P\\0" -o -printf "f %s %P\\0" \\)';

/**
 * The workspace's regular files now (links and special files are not part of it). Sizes are
 * listed first, so the caps hold before any file is read. A listing the sandbox itself failed
 * (sandbox_error, env_mismatch) is an infrastructure failure; anything else that stops the
 * workspace from being read back is the agent's (WorkspaceUnreadableError).
 */
export async function readWorkspace(sb: Sandbox, dir = SANDBOX_WORKSPACE_DIR, caps: WorkspaceCaps = DEFAULT_WORKSPACE_CAPS): Promise<WorkspaceFiles> {
  const r = await sb.exec(['sh', '-c', LIST], { cwd: dir, timeoutMs: 60_000 });
  if (r.status === 'sandbox_error' || r.status === 'env_mismatch')
    throw new WorkspaceSandboxError(`cannot list the workspace ${dir}: ${r.status} ${r.error ?? r.stderr.trim()}`);
  if (r.status !== 'ok')
    throw new WorkspaceUnreadableError(`the workspace could not be listed (find: ${r.status}): ${(r.error ?? r.stderr).trim().slice(0, 500)}`);
  if (r.stdoutTruncated) throw new WorkspaceUnreadableError(`the workspace listing is larger than the sandbox output cap: more than ${caps.maxFiles} files`);
  const entries = r.stdout.split('\0').filter(Boolean);
  if (entries.length > caps.maxFiles) throw new WorkspaceUnreadableError(`the workspace has ${entries.length} files, more than ${caps.maxFiles}`);
  const listed = entries.map((e) => {
    const m = /^([fx]) (\d+) ([\s\S]*)$/.exec(e);
    if (!m) throw new WorkspaceSandboxError(`unexpected workspace listing entry ${JSON.stringify(e.slice(0, 80))}`);
    return { executable: m[1] === 'x', size: Number(m[2]), rel: m[3]! };
  });
  const total = listed.reduce((n, f) => n + f.size, 0);
  if (total > caps.maxBytes) throw new WorkspaceUnreadableError(`the workspace holds ${total} bytes, more than ${caps.maxBytes}`);
  const files: WorkspaceFiles = {};
  for (const f of listed) files[f.rel] = makeFile(await readOne(sb, `${dir}/${f.rel}`), f.executable);
  return files;
}

async function readOne(sb: Sandbox, abs: string): Promise<Buffer> {
  if (sb.runtimeName !== 'microvm') return sb.getFile(abs);
  // microVMs refuse getFile (the scratch is the guest's disk): read through the guest as base64
  const r = await sb.exec(['python3', '-c', 'import base64,sys;sys.stdout.write(base64.b64encode(open(sys.argv[1],"rb").read()).decode())', abs], {
    timeoutMs: 30_000,
  });
  if (r.status !== 'ok' || r.stdoutTruncated) throw new WorkspaceSandboxError(`cannot read ${abs} from the microVM: ${r.status} ${r.error ?? r.stderr.trim()}`);
  return Buffer.from(r.stdout, 'base64');
}
