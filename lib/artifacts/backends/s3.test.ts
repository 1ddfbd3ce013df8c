import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Db } from '@/db/client';
import { ArtifactCorruptError, ArtifactMissingError, ArtifactStore, sha256OfFile } from '../artifact-store';
import { openArtifactStore } from '../open-artifact-store';
import { s3TestServerMissing, startS3TestServer, type S3TestServer } from '../s3-server.testkit';
import { S3_PART_BYTES, S3ArtifactBackend, type S3BackendOptions } from './s3';

// A real S3 server: Ceph's radosgw (Debian's, via scripts/system-deps.sh) on a throwaway
// single-node cluster. Missing binaries fail the file rather than skip it, as CI must run it.
const missing = s3TestServerMissing();
if (missing) throw new Error(`the S3 backend tests need Ceph's radosgw: ${missing}`);

let server: S3TestServer;
let raw: S3Client;
let dir: string;
const PREFIX = 'crucible/artifacts/';

function options(over: Partial<S3BackendOptions> = {}): S3BackendOptions {
  return {
    endpoint: server.endpoint,
    bucket: server.bucket,
    prefix: PREFIX,
    region: server.region,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    ...over,
  };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function artifactFile(name: string, bytes: Buffer) {
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes);
  return { file, ref: { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length } };
}

beforeAll(async () => {
  server = await startS3TestServer();
  console.log(`s3 backend tests: ${server.server} at ${server.endpoint}, started in ${server.startSeconds.toFixed(1)} s`);
  raw = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crucible-s3-test-'));
});

afterAll(async () => {
  raw?.destroy();
  await server?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('S3ArtifactBackend against a real radosgw (Ceph 16, single-node cluster)', () => {
  it('uploads a large artifact in several parts, with its hash as metadata, and streams it back', async () => {
    const bytes = randomBytes(Math.floor(2.5 * S3_PART_BYTES));
    const { file, ref } = await artifactFile('large.bin', bytes);
    const backend = new S3ArtifactBackend(options());
    try {
      expect(await backend.has(ref.sha256)).toBe(false);
      await backend.put(ref, () => createReadStream(file));
      expect(await backend.has(ref.sha256)).toBe(true);

      const head = await raw.send(new HeadObjectCommand({ Bucket: server.bucket, Key: `${PREFIX}${ref.sha256}` }));
      expect(head.ContentLength).toBe(bytes.length);
      expect(head.Metadata).toEqual({ sha256: ref.sha256 });
      // a multipart object's ETag is "<md5 of the parts' md5s>-<part count>"
      expect(head.ETag).toMatch(/-3"$/);

      const body = await backend.get(ref.sha256);
      expect(body).toBeInstanceOf(Readable);
      expect((await readAll(body)).equals(bytes)).toBe(true);
    } finally {
      await backend.close();
    }
  });

  it('answers has false and ArtifactMissingError for an artifact never published', async () => {
    const backend = new S3ArtifactBackend(options());
    const absent = createHash('sha256').update('never published').digest('hex');
    try {
      expect(await backend.has(absent)).toBe(false);
      const err = await backend.get(absent).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ArtifactMissingError);
      expect((err as Error).message).toContain(`s3://${server.bucket}/${PREFIX}`);
    } finally {
      await backend.close();
    }
  });

  it('lists the artifacts under its prefix (for gc) and deletes one; deleting an absent one is a no-op', async () => {
    const backend = new S3ArtifactBackend(options());
    const store = new ArtifactStore({ backend, cacheDir: path.join(dir, 'list-cache'), cacheBytes: 1 << 30 });
    try {
      const a = await store.publishBuffer(Buffer.from('listed a'));
      const b = await store.publishBuffer(Buffer.from('listed b'));
      const listed = new Map<string, { size: number; publishedAt: Date }>();
      for await (const x of backend.list()) listed.set(x.sha256, x);
      expect(listed.get(a.sha256)).toMatchObject({ size: a.size });
      expect(Date.now() - listed.get(b.sha256)!.publishedAt.getTime()).toBeLessThan(10 * 60_000);
      await backend.delete(a.sha256);
      await backend.delete(a.sha256);
      expect(await backend.has(a.sha256)).toBe(false);
      expect(await backend.has(b.sha256)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('keeps a copy it holds unless asked to replace it, and a failed upload leaves no object', async () => {
    const backend = new S3ArtifactBackend(options());
    try {
      const { file, ref } = await artifactFile('small.bin', randomBytes(1000));
      await backend.put(ref, () => createReadStream(file));
      await backend.put(ref, () => {
        throw new Error('the body of an artifact the store already holds was read');
      });
      await backend.put(ref, () => createReadStream(file), { replace: true });
      expect((await readAll(await backend.get(ref.sha256))).equals(await fs.readFile(file))).toBe(true);

      // a source that fails after two parts' worth: the multipart upload is aborted, nothing appears
      const doomed = { sha256: createHash('sha256').update('doomed').digest('hex'), size: 3 * S3_PART_BYTES };
      const failing = () =>
        Readable.from(
          (async function* () {
            yield randomBytes(S3_PART_BYTES);
            yield randomBytes(S3_PART_BYTES);
            throw new Error('source disk failed');
          })(),
        );
      await expect(backend.put(doomed, failing)).rejects.toThrow(/source disk failed/);
      expect(await backend.has(doomed.sha256)).toBe(false);
    } finally {
      await backend.close();
    }
  });

  it('serves an ArtifactStore: a second host fetches into its cache, re-fetches a corrupt cached copy, and reports a corrupt stored object', async () => {
    const publisher = new ArtifactStore({ backend: new S3ArtifactBackend(options()), cacheDir: path.join(dir, 'host1-cache'), cacheBytes: 1 << 30 });
    const lines: string[] = [];
    const fetcher = new ArtifactStore({
      backend: new S3ArtifactBackend(options()),
      cacheDir: path.join(dir, 'host2-cache'),
      cacheBytes: 1 << 30,
      log: (l) => lines.push(l),
    });
    try {
      const bytes = randomBytes(S3_PART_BYTES + 12345);
      const { file } = await artifactFile('checkpoint.bin', bytes);
      const ref = await publisher.publishFile(file);
      expect(ref.size).toBe(bytes.length);

      const cached = await fetcher.fetch(ref.sha256);
      expect(cached).toBe(fetcher.cachePath(ref.sha256));
      expect((await sha256OfFile(cached)).sha256).toBe(ref.sha256);

      // this host's cached copy rots: it is dropped and fetched again from S3
      const fh = await fs.open(cached, 'r+');
      await fh.write(Buffer.from([bytes[100]! ^ 0xff]), 0, 1, 100);
      await fh.close();
      expect((await sha256OfFile(cached)).sha256).not.toBe(ref.sha256);
      expect(await fetcher.fetch(ref.sha256)).toBe(cached);
      expect((await fs.readFile(cached)).equals(bytes)).toBe(true);
      expect(lines.join('\n')).toMatch(/cached copy .* hashes to/);

      // the object in S3 itself is overwritten with other bytes: a fresh fetch fails loudly, once
      await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${PREFIX}${ref.sha256}`, Body: Buffer.from('not the checkpoint') }));
      await fs.rm(cached);
      const err = await fetcher.fetch(ref.sha256).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ArtifactCorruptError);
      expect((err as ArtifactCorruptError).got).toBe(createHash('sha256').update('not the checkpoint').digest('hex'));
      expect((err as Error).message).toContain(`s3://${server.bucket}/`);

      // republishing the original bytes with replace repairs it
      await publisher.publishFile(file, { replace: true });
      expect((await fs.readFile(await fetcher.fetch(ref.sha256))).equals(bytes)).toBe(true);
    } finally {
      await publisher.close();
      await fetcher.close();
    }
  });

  it('says which setting to fix: wrong secret, unknown access key, missing bucket, unreachable endpoint', async () => {
    const sha = createHash('sha256').update('anything').digest('hex');
    const attempt = async (over: Partial<S3BackendOptions>, op: 'has' | 'get' = 'has') => {
      const backend = new S3ArtifactBackend(options(over));
      try {
        return await (op === 'has' ? backend.has(sha) : backend.get(sha)).then(
          () => 'no error',
          (e: unknown) => e as Error,
        );
      } finally {
        await backend.close();
      }
    };

    const wrongSecret = await attempt({ secretAccessKey: 'not-the-secret' });
    expect(wrongSecret).toBeInstanceOf(Error);
    expect((wrongSecret as Error).message).toMatch(/opening the bucket failed: .*SignatureDoesNotMatch.*fix CRUCIBLE_S3_SECRET_ACCESS_KEY/);

    const unknownKey = await attempt({ accessKeyId: 'NOSUCHKEY' });
    expect((unknownKey as Error).message).toMatch(/InvalidAccessKeyId.*fix CRUCIBLE_S3_ACCESS_KEY_ID/);

    // a missing bucket is an error, never "artifact not published"
    const noBucket = await attempt({ bucket: 'no-such-bucket' });
    expect(noBucket).not.toBeInstanceOf(ArtifactMissingError);
    expect((noBucket as Error).message).toMatch(/bucket "no-such-bucket" does not exist there: create it, or fix CRUCIBLE_S3_BUCKET/);
    const noBucketGet = await attempt({ bucket: 'no-such-bucket' }, 'get');
    expect(noBucketGet).not.toBeInstanceOf(ArtifactMissingError);

    const unreachable = await attempt({ endpoint: 'http://127.0.0.1:9' });
    expect((unreachable as Error).message).toMatch(/cannot be reached .*CRUCIBLE_S3_ENDPOINT/);

    expect(() => new S3ArtifactBackend(options({ secretAccessKey: undefined }))).toThrow(
      /set both CRUCIBLE_S3_ACCESS_KEY_ID and CRUCIBLE_S3_SECRET_ACCESS_KEY/,
    );
    expect(() => new S3ArtifactBackend(options({ bucket: 'B' }))).toThrow(/bucket: an S3 bucket name/);
  });

  it('is what openArtifactStore opens for CRUCIBLE_ARTIFACT_BACKEND=s3, and refuses without a bucket', async () => {
    const env = {
      CRUCIBLE_ARTIFACT_BACKEND: 's3',
      CRUCIBLE_S3_ENDPOINT: server.endpoint,
      CRUCIBLE_S3_BUCKET: server.bucket,
      CRUCIBLE_S3_ACCESS_KEY_ID: server.accessKeyId,
      CRUCIBLE_S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    };
    // the s3 backend never touches the database
    const deps = { dataDir: path.join(dir, 'data'), db: undefined as unknown as Db };
    const store = openArtifactStore(parseSettings(env), deps);
    try {
      expect(store.backend).toBeInstanceOf(S3ArtifactBackend);
      expect(store.backend.describe()).toBe(`s3://${server.bucket}/crucible/artifacts/ at ${server.endpoint}`);
      const ref = await store.publishBuffer(Buffer.from('through the factory'));
      expect(await store.backend.has(ref.sha256)).toBe(true);
    } finally {
      await store.close();
    }
    expect(() => openArtifactStore(parseSettings({ ...env, CRUCIBLE_S3_BUCKET: undefined }), deps)).toThrow(/needs CRUCIBLE_S3_BUCKET/);
  });
});
