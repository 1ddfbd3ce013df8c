import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ModelConfig } from './model';
import { OptimConfig } from './optim';
import { TokenizerSpec } from './tokenizer';

/**
 * One policy version in one file: magic, a JSON header (config, tokenizer, optimizer step,
 * tensor table) and raw little-endian float32 tensors (weights, Adam moments). No
 * timestamps, so the same state always gives the same bytes and the same sha256.
 */
const MAGIC = 'CRUCIBLE-POLICY1';

const Header = z.object({
  format: z.literal(1),
  model: ModelConfig,
  optim: OptimConfig,
  tokenizer: TokenizerSpec,
  step: z.number().int().min(0),
  tensors: z.array(z.object({ name: z.string(), shape: z.array(z.number().int()), offset: z.number().int(), length: z.number().int() })),
});

export type CheckpointState = {
  model: ModelConfig;
  optim: OptimConfig;
  tokenizer: TokenizerSpec;
  step: number;
  /** Parameters by name, then Adam moments as `m.<name>` / `v.<name>`. */
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
};

export function encodeCheckpoint(s: CheckpointState): Buffer {
  let offset = 0;
  const table = [...s.tensors].map(([name, t]) => {
    const e = { name, shape: t.shape, offset, length: t.data.length };
    offset += t.data.byteLength;
    return e;
  });
  const header = Buffer.from(JSON.stringify({ format: 1, model: s.model, optim: s.optim, tokenizer: s.tokenizer, step: s.step, tensors: table }));
  const lead = Buffer.alloc(MAGIC.length + 4);
  lead.write(MAGIC, 0, 'ascii');
  // Pad the header so tensor data starts 4-byte aligned and can be viewed without copying.
  const padded = Buffer.concat([header, Buffer.alloc((4 - ((lead.length + header.length) % 4)) % 4, 0x20)]);
  lead.writeUInt32LE(padded.length, MAGIC.length);
  const blobs = [...s.tensors.values()].map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return Buffer.concat([lead, padded, ...blobs]);
}

export function decodeCheckpoint(buf: Buffer): CheckpointState {
  if (buf.subarray(0, MAGIC.length).toString('ascii') !== MAGIC) throw new Error('not a Crucible policy checkpoint (bad magic)');
  const hlen = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4;
  const header = Header.parse(JSON.parse(buf.subarray(start, start + hlen).toString('utf8')));
  const base = start + hlen;
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const t of header.tensors) {
    const from = base + t.offset;
    if (from + t.length * 4 > buf.length) throw new Error(`checkpoint is truncated at tensor ${t.name}`);
    // Copy out so the tensors own aligned memory independent of the file buffer.
    const data = new Float32Array(t.length);
    Buffer.from(data.buffer).set(buf.subarray(from, from + t.length * 4));
    tensors.set(t.name, { shape: t.shape, data });
  }
  return { model: header.model, optim: header.optim, tokenizer: header.tokenizer, step: header.step, tensors };
}

export function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** Write atomically with a `.sha256` sidecar; returns the digest of the file's bytes. */
export async function writeCheckpoint(file: string, s: CheckpointState): Promise<{ path: string; sha256: string; bytes: number }> {
  const buf = encodeCheckpoint(s);
  const digest = sha256(buf);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, buf);
  await fs.rename(tmp, file);
  await fs.writeFile(`${file}.sha256`, `${digest}  ${path.basename(file)}\n`);
  return { path: file, sha256: digest, bytes: buf.length };
}

/** Read and verify against the sidecar digest when present. */
export async function readCheckpoint(file: string): Promise<{ state: CheckpointState; sha256: string }> {
  const buf = await fs.readFile(file);
  const digest = sha256(buf);
  const side = await fs.readFile(`${file}.sha256`, 'utf8').catch(() => undefined);
  if (side && side.split(/\s+/)[0] !== digest) throw new Error(`checkpoint ${file} does not match its .sha256 (corrupted or replaced)`);
  return { state: decodeCheckpoint(buf), sha256: digest };
}

/** Where named policies live under a data directory: `<dataDir>/policies`. */
export function policiesDir(dataDir: string): string {
  return path.resolve(dataDir, 'policies');
}

export function versionFile(dir: string, version: number): string {
  return path.join(dir, `v${String(version).padStart(6, '0')}.ckpt`);
}

/** Versions saved in a policy directory, ascending. */
export async function listVersions(dir: string): Promise<number[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names
    .map((n) => /^v(\d{6})\.ckpt$/.exec(n)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}
