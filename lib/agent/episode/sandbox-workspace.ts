import type { WorkspaceFiles } from '@/core/repo-tasks';
import type { Sandbox } from '@/lib/sandbox/runtimes/sandbox-runtime';
import { SandboxError } from '@/lib/sandbox/types';
import { fileBytes, fileExecutable, makeFile } from '../workspace/workspace-file';
import { DEFAULT_WORKSPACE_CAPS, type WorkspaceCaps } from '../workspace/workspace-source';

/**
 * A task's workspace inside an episode's sandbox: written in through putFile (host side,
 * never through a link), read back as files for the diff. Caches the tools leave behind
 * (`__pycache__`, `.pytest_cache`) and `.git` (the agent's one-commit repository,
 * workspace-git.ts; anywhere in the tree) are not part of the workspace.
 */
export const SANDBOX_WORKSPACE_DIR = '/work/repo';

export class WorkspaceSandboxError extends Error {}

/**
 * The agent left a workspace that cannot be read back: entries it made unreadable, a file
 * name that is not UTF-8, more files or bytes than the caps. The agent's doing, so the episode is scored 0 with this as
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

/**
 * The listing: every regular file as `x|f SIZE PATH` (executable or not), NUL-ended, then
 * `E STATUS` with find's own exit status. Names are raw bytes, which the exec result would
 * decode as UTF-8 (an invalid byte becoming U+FFFD, a name no read could find), so sed's `l`
 * escapes them (C locale: `\\`, `\n`…, `\ooo` for every other unprintable byte) and the host
 * decodes the exact bytes.
 */
const LIST =
  '{ find . \\( -name __pycache__ -o -name .pytest_cache -o -name .git \\) -prune -o -type f \\( -perm -u+x -printf "x %s %P\\0" -o -printf "f %s %P\\0" \\); ' +
  'printf "E %d\\0" $?; } | LC_ALL=C sed -z -n "l 0"';

const ESCAPES: Record<string, number> = { '\\': 0x5c, a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11 };

/** One record of sed's `l` (its trailing `$` already cut) back to bytes; null if it is not sed's escaping. */
export function unescapeListing(s: string): Buffer | null {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7e || c < 0x20) return null; // sed printed every other byte escaped
    if (s[i] !== '\\') {
      out.push(c);
      continue;
    }
    const oct = /^[0-7]{3}/.exec(s.slice(i + 1, i + 4));
    if (oct) {
      out.push(parseInt(oct[0], 8));
      i += 3;
    } else if (ESCAPES[s[i + 1] ?? ''] !== undefined) {
      out.push(ESCAPES[s[i + 1]!]!);
      i += 1;
    } else return null;
  }
  return Buffer.from(out);
}

/** The name as UTF-8 text, or null when its bytes are not valid UTF-8. */
function utf8Name(bytes: Buffer): string | null {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

/** A name for messages: printable ASCII as is, every other byte as \xNN (the agent's names may hold anything). */
const shownName = (bytes: Buffer) =>
  [...bytes].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');

const runtimeFailed = (status: string) => status === 'sandbox_error' || status === 'env_mismatch';

type Listed = { executable: boolean; size: number; rel: string };

/**
 * The workspace's regular files now (links and special files are not part of it). Sizes are
 * listed first, so the caps hold before any file is read.
 *
 * Whose failure: after the agent's first action, the only infrastructure failures are those
 * the runtime itself reports (an exec's `sandbox_error` or `env_mismatch`, a sandbox that
 * is gone): WorkspaceSandboxError, or the runtime's own error. Anything else that stops the
 * workspace from being read back — entries it made unreadable, a name that is not UTF-8, more
 * files or bytes than the caps — is the agent's (WorkspaceUnreadableError): scored 0 with the
 * reason, never masked.
 */
export async function readWorkspace(sb: Sandbox, dir = SANDBOX_WORKSPACE_DIR, caps: WorkspaceCaps = DEFAULT_WORKSPACE_CAPS): Promise<WorkspaceFiles> {
  const listed = await listWorkspace(sb, dir, caps);
  const total = listed.reduce((n, f) => n + f.size, 0);
  if (total > caps.maxBytes) throw new WorkspaceUnreadableError(`the workspace holds ${total} bytes, more than ${caps.maxBytes}`);
  const contents = sb.runtimeName === 'microvm' ? await readInGuest(sb, dir, listed) : listed.map((f) => readOnHost(sb, dir, f));
  const files: WorkspaceFiles = {};
  listed.forEach((f, i) => (files[f.rel] = makeFile(contents[i]!, f.executable)));
  return files;
}

async function listWorkspace(sb: Sandbox, dir: string, caps: WorkspaceCaps): Promise<Listed[]> {
  const r = await sb.exec(['sh', '-c', LIST], { cwd: dir, timeoutMs: 60_000 });
  if (runtimeFailed(r.status)) throw new WorkspaceSandboxError(`cannot list the workspace ${dir}: ${r.status} ${r.error ?? r.stderr.trim()}`);
  const stderr = r.stderr.trim().slice(0, 500);
  // the environment's own tools are missing (its root is read-only to the agent): not the agent's doing
  if (r.exitCode === 127 && r.stdout === '') throw new WorkspaceSandboxError(`cannot list the workspace ${dir} (find or sed missing?): ${stderr}`);
  if (r.stdoutTruncated)
    throw new WorkspaceUnreadableError(
      `the workspace listing is larger than the sandbox output cap (${r.stdout.length} bytes): too many files or too long names`,
    );
  const records = r.stdout.split('\0');
  if (records.at(-1) === '') records.pop();
  const end = records.pop();
  const status = end === undefined ? null : /^E (\d+)\$$/.exec(end);
  if (r.status !== 'ok' || !status) throw new WorkspaceUnreadableError(`the workspace could not be listed (${r.status}, exit ${r.exitCode}): ${stderr}`);
  if (status[1] === '127') throw new WorkspaceSandboxError(`cannot list the workspace ${dir} (find missing?): ${stderr}`);
  if (status[1] !== '0') throw new WorkspaceUnreadableError(`the workspace could not be listed (find: exit ${status[1]}): ${stderr}`);
  if (records.length > caps.maxFiles) throw new WorkspaceUnreadableError(`the workspace has ${records.length} files, more than ${caps.maxFiles}`);
  return records.map((rec) => {
    const bytes = rec.endsWith('$') ? unescapeListing(rec.slice(0, -1)) : null;
    const m = bytes && /^([fx]) (\d+) /.exec(bytes.subarray(0, 32).toString('latin1'));
    if (!bytes || !m) throw new WorkspaceUnreadableError(`unexpected workspace listing entry ${JSON.stringify(rec.slice(0, 80))}`);
    const name = bytes.subarray(m[0].length);
    const rel = utf8Name(name);
    if (rel === null) throw new WorkspaceUnreadableError(`the file name "${shownName(name)}" is not UTF-8; workspace paths must be UTF-8 text`);
    return { executable: m[1] === 'x', size: Number(m[2]), rel };
  });
}

/** Host side (getFile, which never follows a link). A file it refuses (SandboxError: not a regular file, a link, too big) is the agent's. */
function readOnHost(sb: Sandbox, dir: string, f: Listed): Buffer {
  try {
    return sb.getFile(`${dir}/${f.rel}`);
  } catch (e) {
    if (e instanceof SandboxError && e.kind === 'config') throw new WorkspaceUnreadableError(`${f.rel} could not be read back: ${e.message}`);
    throw e;
  }
}

/**
 * Read `files` in pieces: python3 writes one base64 line per piece; as many pieces per
 * exec as fit in the sandbox's output cap, so a large file takes several execs and no
 * exec's output is ever cut.
 */
const READ_PIECES = [
  'import base64,sys',
  'a=sys.argv[1:]',
  'for i in range(0,len(a),3):',
  ' try:',
  '  with open(a[i],"rb") as f:',
  '   f.seek(int(a[i+1]))',
  '   b=f.read(int(a[i+2]))',
  ' except OSError as e:',
  '  sys.stderr.write(a[i][2:]+": "+(e.strerror or str(e)))',
  '  sys.exit(3)',
  ' sys.stdout.write(base64.b64encode(b).decode()+"\\n")',
].join('\n');
const MAX_PIECES_PER_EXEC = 256;

/** microVMs refuse getFile (the scratch is the guest's disk): read through the guest as base64, in pieces within the output cap. */
async function readInGuest(sb: Sandbox, dir: string, files: Listed[]): Promise<Buffer[]> {
  // base64 is 4 bytes per 3, plus a newline per piece; keep a margin under the cap
  const room = Math.max(4096, sb.spec.limits.outputBytes - 1024);
  const pieceBytes = Math.floor((room - 1) / 4) * 3;
  type Piece = { file: number; offset: number; length: number };
  const pieces: Piece[] = [];
  files.forEach((f, file) => {
    if (f.size === 0) pieces.push({ file, offset: 0, length: 0 });
    for (let offset = 0; offset < f.size; offset += pieceBytes) pieces.push({ file, offset, length: Math.min(pieceBytes, f.size - offset) });
  });
  const parts: Buffer[][] = files.map(() => []);
  const cost = (p: Piece) => Math.ceil(p.length / 3) * 4 + 1;
  let i = 0;
  while (i < pieces.length) {
    const batch: Piece[] = [];
    let used = 0;
    while (i < pieces.length && batch.length < MAX_PIECES_PER_EXEC && (batch.length === 0 || used + cost(pieces[i]!) <= room)) {
      used += cost(pieces[i]!);
      batch.push(pieces[i++]!);
    }
    const args = batch.flatMap((p) => [`./${files[p.file]!.rel}`, String(p.offset), String(p.length)]);
    const r = await sb.exec(['python3', '-c', READ_PIECES, ...args], { cwd: dir, timeoutMs: 60_000 });
    const what = batch.length === 1 ? files[batch[0]!.file]!.rel : `${files[batch[0]!.file]!.rel} and ${batch.length - 1} more`;
    if (runtimeFailed(r.status)) throw new WorkspaceSandboxError(`cannot read ${what} from the microVM: ${r.status} ${r.error ?? r.stderr.trim()}`);
    if (r.status === 'nonzero_exit' && r.exitCode === 3) throw new WorkspaceUnreadableError(`the guest could not read ${r.stderr.trim().slice(0, 500)}`);
    if (r.status !== 'ok' || r.stdoutTruncated)
      throw new WorkspaceUnreadableError(
        `${what} could not be read back (${r.status}${r.stdoutTruncated ? ', output cut' : ''}): ${r.stderr.trim().slice(-500)}`,
      );
    const lines = r.stdout.split('\n');
    batch.forEach((p, k) => {
      const data = Buffer.from(lines[k] ?? '', 'base64');
      if (data.length !== p.length)
        throw new WorkspaceUnreadableError(`${files[p.file]!.rel} changed while it was read back (${data.length} bytes at ${p.offset}, not ${p.length})`);
      parts[p.file]!.push(data);
    });
  }
  return parts.map((p) => Buffer.concat(p));
}
