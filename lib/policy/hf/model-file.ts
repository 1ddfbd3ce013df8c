import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Opening one file of a Hugging Face model directory without trusting the directory (docs/security.md,
 * "Model import"). Hugging Face repositories are git repositories and git keeps symbolic links, so a
 * downloaded model can hold `chat_template.jinja -> /srv/crucible/.data/pg.password`. A file is
 * read only when it resolves inside the model directory (or, for a Hugging Face hub cache
 * snapshot `…/models--org--name/snapshots/REV/`, inside `models--org--name/`, where the cache
 * keeps its blobs), is a regular file (a FIFO or `/dev/zero` is refused, never read forever),
 * and is no larger than its cap. The check is made on the opened descriptor, so a link swapped
 * in between the check and the open is caught too.
 */

export class ModelFileError extends Error {
  override name = 'ModelFileError';
}

const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const within = (p: string, root: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);

/**
 * The real directories a model directory's files may resolve into. A caller reading many files
 * computes it once and passes it (`inside`), so a directory swapped for a link midway is caught
 * by the per-descriptor check instead of moving the boundary with it.
 */
export async function modelDirContainment(dir: string): Promise<string[]> {
  const real = await fs.realpath(dir).catch(() => {
    throw new ModelFileError(`${dir}: not a directory (expected a Hugging Face model directory with config.json)`);
  });
  const inside = [real];
  const snapshots = path.dirname(real);
  const repo = path.dirname(snapshots);
  if (path.basename(snapshots) === 'snapshots' && /^models--[^/]+$/.test(path.basename(repo))) inside.push(repo);
  return inside;
}

export type OpenedModelFile = { fh: fs.FileHandle; size: number; file: string };

/**
 * Open `name` in `dir` for reading, or undefined when there is no such file. Refused with a
 * ModelFileError naming the file: a name that is not a plain file name, a link that resolves
 * outside the directory (or nowhere), anything but a regular file, more than `maxBytes`.
 */
export async function openModelFile(dir: string, name: string, o: { maxBytes?: number; inside?: string[] } = {}): Promise<OpenedModelFile | undefined> {
  if (!PLAIN_NAME.test(name)) throw new ModelFileError(`${JSON.stringify(name)} is not a plain file name; a model's files are named like config.json`);
  const file = path.join(dir, name);
  const st = await fs.lstat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
    throw new ModelFileError(`${file}: cannot read (${e.code ?? e.message})`);
  });
  if (!st) return undefined;
  const inside = o.inside ?? (await modelDirContainment(dir));
  const outside = () =>
    new ModelFileError(
      `${file} is a symbolic link that points outside the model directory; refusing to read it (copy the file into the directory instead of linking it)`,
    );
  const real = await fs.realpath(file).catch(() => {
    throw new ModelFileError(`${file} is a symbolic link to a file that does not exist; copy the real file into the directory`);
  });
  if (!inside.some((r) => within(real, r))) throw outside();
  // O_NOFOLLOW: the resolved name must not have become a link; O_NONBLOCK: opening a FIFO must not wait for a writer
  const fh = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ELOOP' ? outside() : new ModelFileError(`${file}: cannot open (${e.code ?? e.message})`);
  });
  try {
    const opened = await fs.readlink(`/proc/self/fd/${fh.fd}`).catch(() => real);
    if (!inside.some((r) => within(opened, r))) throw outside();
    const fst = await fh.stat();
    if (!fst.isFile()) throw new ModelFileError(`${file} is not a regular file (a directory, FIFO, socket or device); a model directory holds plain files`);
    if (o.maxBytes !== undefined && fst.size > o.maxBytes)
      throw new ModelFileError(`${file} is ${fst.size} bytes; a ${name} may have at most ${o.maxBytes} bytes, so it was not read`);
    return { fh, size: fst.size, file };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** `name`'s text (UTF-8), or undefined when the file does not exist; refused as openModelFile refuses. */
export async function readModelText(dir: string, name: string, maxBytes: number, inside?: string[]): Promise<string | undefined> {
  const f = await openModelFile(dir, name, { maxBytes, inside });
  if (!f) return undefined;
  try {
    // one byte past what fstat said: a file that grew after the check is refused, not read on
    const buf = Buffer.alloc(Math.min(f.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await f.fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) break;
    }
    if (n > f.size) throw new ModelFileError(`${f.file} grew while it was read; refusing it (import it again once it is complete)`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    await f.fh.close();
  }
}
