import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Settings } from '@/core/settings';
import { ArtifactMissingError, SHA256_HEX, type ArtifactBackend, type ArtifactRef, type PutOptions, type StoredArtifact } from '../artifact-store';

/** Parts of a multipart upload; S3's minimum is 5 MiB (all but the last part). */
export const S3_PART_BYTES = 8 * 1024 * 1024;
/** Parts in flight at once: an upload buffers at most this many parts (32 MiB by default). */
export const S3_QUEUE_SIZE = 4;

export const s3BackendOptions = z
  .object({
    /** unset: AWS itself, the region's endpoint */
    endpoint: z.string().url().optional(),
    // S3's bucket naming rules, so a typo fails here rather than as a server's InvalidBucketName
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens'),
    prefix: z.string(),
    region: z.string().min(1),
    /** both or neither: neither uses the AWS SDK's default credential chain */
    accessKeyId: z.string().min(1).optional(),
    secretAccessKey: z.string().min(1).optional(),
    forcePathStyle: z.boolean(),
    partBytes: z
      .number()
      .int()
      .min(5 * 1024 * 1024)
      .default(S3_PART_BYTES),
    queueSize: z.number().int().min(1).default(S3_QUEUE_SIZE),
  })
  .refine((o) => (o.accessKeyId === undefined) === (o.secretAccessKey === undefined), {
    message: 'set both CRUCIBLE_S3_ACCESS_KEY_ID and CRUCIBLE_S3_SECRET_ACCESS_KEY, or neither (the AWS default credential chain)',
  });
export type S3BackendOptions = z.input<typeof s3BackendOptions>;

/** The `s3` backend's options from settings; refuses when `CRUCIBLE_S3_BUCKET` is unset. */
export function s3OptionsFromSettings(s: Settings): S3BackendOptions {
  if (!s.CRUCIBLE_S3_BUCKET) {
    throw new Error(
      'CRUCIBLE_ARTIFACT_BACKEND=s3 needs CRUCIBLE_S3_BUCKET: set it to the bucket artifacts live in (and CRUCIBLE_S3_ENDPOINT for a server other than AWS)',
    );
  }
  return {
    endpoint: s.CRUCIBLE_S3_ENDPOINT,
    bucket: s.CRUCIBLE_S3_BUCKET,
    prefix: s.CRUCIBLE_S3_PREFIX,
    region: s.CRUCIBLE_S3_REGION,
    accessKeyId: s.CRUCIBLE_S3_ACCESS_KEY_ID,
    secretAccessKey: s.CRUCIBLE_S3_SECRET_ACCESS_KEY,
    forcePathStyle: s.CRUCIBLE_S3_FORCE_PATH_STYLE,
  };
}

/** An S3 error's HTTP status and code (a HEAD response has no body, so its code may be just "NotFound" or "Unknown"). */
function s3Status(e: unknown): { status?: number; code?: string } {
  if (e instanceof S3ServiceException) return { status: e.$metadata.httpStatusCode, code: e.name };
  const o = e as { $metadata?: { httpStatusCode?: number }; name?: string } | undefined;
  return { status: o?.$metadata?.httpStatusCode, code: o?.name };
}

/**
 * S3-compatible object storage (AWS S3, Ceph radosgw, MinIO, …): each artifact is one object,
 * `<prefix><sha256>`, with its hash also in the object's metadata (`x-amz-meta-sha256`) for
 * anyone browsing the bucket. Uploads are multipart and streamed (a bounded number of parts
 * buffered), and complete atomically: a failed upload is aborted and leaves no object.
 */
export class S3ArtifactBackend implements ArtifactBackend {
  readonly name = 's3' as const;
  readonly opts: z.output<typeof s3BackendOptions>;
  private readonly client: S3Client;
  private bucketChecked: Promise<void> | undefined;

  constructor(options: S3BackendOptions) {
    const parsed = s3BackendOptions.safeParse(options);
    if (!parsed.success) throw new Error(`s3 artifact backend: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}`);
    this.opts = parsed.data;
    const { endpoint, region, forcePathStyle, accessKeyId, secretAccessKey } = this.opts;
    this.client = new S3Client({
      endpoint,
      region,
      forcePathStyle,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      // Checksums only where S3 requires them: self-hosted servers (Ceph 16's radosgw among them)
      // predate the SDK's default CRC32 trailers; the store verifies every artifact's sha256 itself.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  key(sha256: string): string {
    return `${this.opts.prefix}${sha256}`;
  }

  async put(ref: ArtifactRef, body: () => Readable, opts: PutOptions = {}): Promise<void> {
    if (!opts.replace && (await this.has(ref.sha256))) return;
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.opts.bucket,
        Key: this.key(ref.sha256),
        Body: body(),
        ContentType: 'application/octet-stream',
        Metadata: { sha256: ref.sha256 },
      },
      partSize: this.opts.partBytes,
      queueSize: this.opts.queueSize,
      // an interrupted upload's parts are aborted, not left to bill and linger
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (e) {
      throw this.explain(e, 'uploading', ref.sha256);
    }
  }

  async get(sha256: string): Promise<Readable> {
    await this.checkBucket();
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(sha256) }));
      // In Node the SDK's body is an http.IncomingMessage (a Readable) with helpers mixed in.
      if (!(res.Body instanceof Readable)) throw new Error(`s3 artifact backend: GetObject of ${this.key(sha256)} returned no stream body`);
      return res.Body;
    } catch (e) {
      const { status, code } = s3Status(e);
      if (code === 'NoSuchKey' || (status === 404 && code !== 'NoSuchBucket')) throw new ArtifactMissingError(sha256, this.describe());
      throw this.explain(e, 'downloading', sha256);
    }
  }

  async has(sha256: string): Promise<boolean> {
    await this.checkBucket();
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: this.key(sha256) }));
      return true;
    } catch (e) {
      // The bucket exists (checked above), so a 404 here is the object.
      if (s3Status(e).status === 404) return false;
      throw this.explain(e, 'looking up', sha256);
    }
  }

  /** Objects under the prefix named by a hash; `publishedAt` is the object's LastModified (a re-publish of present bytes does not refresh it). */
  async *list(): AsyncIterable<StoredArtifact> {
    await this.checkBucket();
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: this.opts.prefix, ContinuationToken: token }));
      } catch (e) {
        throw this.explain(e, 'listing');
      }
      for (const o of page.Contents ?? []) {
        const sha256 = o.Key?.slice(this.opts.prefix.length) ?? '';
        if (SHA256_HEX.test(sha256)) yield { sha256, size: o.Size ?? 0, publishedAt: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(sha256: string): Promise<void> {
    await this.checkBucket();
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(sha256) }));
    } catch (e) {
      throw this.explain(e, 'deleting', sha256);
    }
  }

  describe(): string {
    return `s3://${this.opts.bucket}/${this.opts.prefix} at ${this.opts.endpoint ?? `AWS ${this.opts.region}`}`;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /**
   * Once per backend: the bucket exists and these credentials may use it. A HEAD on a missing
   * object and on a missing bucket both answer 404, so without this a wrong bucket name would
   * read as "artifact not published". A one-key listing rather than HeadBucket (the same
   * permission): its error has a body, so a wrong secret and an unknown key are told apart.
   */
  private checkBucket(): Promise<void> {
    this.bucketChecked ??= this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: this.opts.prefix, MaxKeys: 1 })).then(
      () => undefined,
      (e: unknown) => {
        this.bucketChecked = undefined; // retried on the next call: the server may come back
        throw this.explain(e, 'opening the bucket');
      },
    );
    return this.bucketChecked;
  }

  /** An S3 failure as an error that says which setting to fix. */
  private explain(e: unknown, what: string, sha256?: string): Error {
    const { status, code } = s3Status(e);
    const object = sha256 ? ` artifact ${sha256}` : '';
    let fix: string;
    if (code === 'NoSuchBucket' || (status === 404 && !sha256)) {
      fix = `bucket ${JSON.stringify(this.opts.bucket)} does not exist there: create it, or fix CRUCIBLE_S3_BUCKET (or CRUCIBLE_S3_ENDPOINT)`;
    } else if (code === 'InvalidAccessKeyId') {
      fix = 'the server does not know this access key (InvalidAccessKeyId): fix CRUCIBLE_S3_ACCESS_KEY_ID';
    } else if (code === 'SignatureDoesNotMatch') {
      fix = 'the server rejects the request signature (SignatureDoesNotMatch): fix CRUCIBLE_S3_SECRET_ACCESS_KEY (the secret of CRUCIBLE_S3_ACCESS_KEY_ID)';
    } else if (status === 403 || code === 'AccessDenied') {
      fix = `access denied (HTTP 403${code && code !== 'Unknown' ? ` ${code}` : ''}): fix CRUCIBLE_S3_ACCESS_KEY_ID / CRUCIBLE_S3_SECRET_ACCESS_KEY, or grant that key read and write on bucket ${JSON.stringify(this.opts.bucket)}`;
    } else if (status === 301 || code === 'PermanentRedirect' || code === 'AuthorizationHeaderMalformed') {
      fix = `the bucket is in another region (${code ?? `HTTP ${status}`}): fix CRUCIBLE_S3_REGION`;
    } else if (code === 'CredentialsProviderError') {
      fix = 'no credentials: set CRUCIBLE_S3_ACCESS_KEY_ID and CRUCIBLE_S3_SECRET_ACCESS_KEY (or configure the AWS default credential chain)';
    } else if (
      status === undefined &&
      /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET/.test(String((e as Error)?.message) + String((e as { code?: string })?.code))
    ) {
      fix = `the server cannot be reached (${(e as { code?: string }).code ?? (e as Error).message}): check CRUCIBLE_S3_ENDPOINT and that the server is up`;
    } else {
      fix = `${code ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${(e as Error)?.message ?? String(e)}`;
    }
    return new Error(`s3 artifact store (${this.describe()}): ${what}${object} failed: ${fix}`, { cause: e });
  }
}
