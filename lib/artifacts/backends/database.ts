import { Readable } from 'node:stream';
import { and, asc, eq, gt, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { artifactChunks, artifacts } from '@/db/schema/artifacts';
import { ArtifactCorruptError, ArtifactMissingError, type ArtifactBackend, type ArtifactRef, type PutOptions, type StoredArtifact } from '../artifact-store';

/**
 * Advisory-lock class of artifact publishes (the two-int4 key space, apart from the project's
 * one-bigint locks): publishers of one hash queue behind each other, and the later ones find
 * the artifact present and upload nothing.
 */
const PUBLISH_LOCK_CLASS = 0x61727466; // 'artf'

/** The second key: the hash's first 32 bits (a collision only serialises two publishes). */
const lockKey = (sha256: string) => Number.parseInt(sha256.slice(0, 8), 16) | 0;

export type DatabaseArtifactBackendOptions = {
  /** this host (CRUCIBLE_NODE or the hostname), recorded as `published_by` */
  host: string;
  /** bytes per `artifact_chunks` row (default 1 MiB): the most a put holds in memory besides its driver's copy */
  chunkBytes?: number;
  /** how many bytes a get asks for in one query (default 2 MiB, at least one chunk); a get keeps one query ahead, so a reader that stops pins about twice this */
  readBytes?: number;
};

/**
 * Artifacts in PostgreSQL, the default when hosts share `DATABASE_URL`: scale-out needs
 * nothing but the database. An artifact is `artifact_chunks` rows (`chunkBytes` each) plus
 * one `artifacts` row written last in the same transaction, so a reader sees it whole or not
 * at all. Both ways are streamed: a put inserts chunk by chunk as it reads the body; a get
 * queries a few chunks at a time, only as fast as its reader consumes them. Bytes travel as
 * base64 text (the driver sends parameters and reads results as text; its bytea default, hex,
 * is twice the size and measured about half as fast both ways).
 */
export class DatabaseArtifactBackend implements ArtifactBackend {
  readonly name = 'database' as const;
  readonly chunkBytes: number;
  private readonly chunksPerRead: number;

  constructor(
    private readonly db: Db,
    readonly opts: DatabaseArtifactBackendOptions,
  ) {
    this.chunkBytes = opts.chunkBytes ?? 1024 * 1024;
    if (!Number.isInteger(this.chunkBytes) || this.chunkBytes < 1) throw new Error(`chunkBytes must be a positive integer, got ${opts.chunkBytes}`);
    this.chunksPerRead = Math.max(1, Math.floor((opts.readBytes ?? 2 * 1024 * 1024) / this.chunkBytes));
  }

  async put(ref: ArtifactRef, body: () => Readable, opts: PutOptions = {}): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_catalog.pg_advisory_xact_lock(${PUBLISH_LOCK_CLASS}::int4, ${lockKey(ref.sha256)}::int4)`);
      const [present] = await tx.select({ size: artifacts.size }).from(artifacts).where(eq(artifacts.sha256, ref.sha256));
      if (present && !opts.replace) {
        // published again: not garbage yet (crucible artifacts gc spares recent ones)
        await tx.update(artifacts).set({ createdAt: new Date() }).where(eq(artifacts.sha256, ref.sha256));
        return;
      }
      // replace, or chunks without their row (left by a manual cleanup): start from nothing
      await tx.delete(artifacts).where(eq(artifacts.sha256, ref.sha256));
      await tx.delete(artifactChunks).where(eq(artifactChunks.sha256, ref.sha256));
      const chunk = Buffer.allocUnsafe(this.chunkBytes);
      let fill = 0;
      let seq = 0;
      let size = 0;
      const flush = async () => {
        const text = chunk.toString('base64', 0, fill);
        await tx.insert(artifactChunks).values({ sha256: ref.sha256, seq, data: sql`pg_catalog.decode(${text}, 'base64')` });
        seq++;
        fill = 0;
      };
      // for await pulls one piece at a time: the body is read no faster than chunks are inserted
      for await (const piece of body() as AsyncIterable<Buffer>) {
        size += piece.length;
        if (size > ref.size) throw new Error(`artifact ${ref.sha256}: its body is longer than the ${ref.size} bytes published`);
        for (let off = 0; off < piece.length;) {
          const n = piece.copy(chunk, fill, off);
          fill += n;
          off += n;
          if (fill === this.chunkBytes) await flush();
        }
      }
      if (fill > 0) await flush();
      if (size !== ref.size) throw new Error(`artifact ${ref.sha256}: its body has ${size} bytes, not the ${ref.size} published`);
      await tx.insert(artifacts).values({ sha256: ref.sha256, size, chunks: seq, publishedBy: this.opts.host }).onConflictDoNothing();
    });
  }

  async get(sha256: string): Promise<Readable> {
    const [row] = await this.db.select({ size: artifacts.size, chunks: artifacts.chunks }).from(artifacts).where(eq(artifacts.sha256, sha256));
    if (!row) throw new ArtifactMissingError(sha256, this.describe());
    // objectMode off and one chunk of buffer: the generator is pulled only as the reader drains
    return Readable.from(this.chunks(sha256, row), { objectMode: false, highWaterMark: this.chunkBytes });
  }

  private async *chunks(sha256: string, row: { size: number; chunks: number }): AsyncGenerator<Buffer> {
    const batch = (from: number) => {
      const to = Math.min(row.chunks, from + this.chunksPerRead);
      const rows = this.db
        .select({ seq: artifactChunks.seq, data: sql<string>`pg_catalog.encode(${artifactChunks.data}, 'base64')` })
        .from(artifactChunks)
        .where(and(eq(artifactChunks.sha256, sha256), gte(artifactChunks.seq, from), lt(artifactChunks.seq, to)))
        .orderBy(asc(artifactChunks.seq))
        .execute();
      rows.catch(() => {}); // awaited when its turn comes; dropped if the reader stops first
      return { from, to, rows };
    };
    let size = 0;
    // One query ahead of the reader: the server encodes the next batch while this one is decoded.
    let next = row.chunks > 0 ? batch(0) : undefined;
    while (next) {
      const { from, to } = next;
      const rows = await next.rows;
      next = to < row.chunks ? batch(to) : undefined;
      for (let seq = from; seq < to; seq++) {
        // shift: a yielded chunk's text is garbage once decoded, not held through the batch
        const r = rows.shift();
        if (r?.seq !== seq) throw new ArtifactCorruptError(sha256, '', this.describe(), `is missing chunk ${seq} of ${row.chunks}`);
        const data = Buffer.from(r.data, 'base64');
        size += data.length;
        yield data;
      }
    }
    if (size !== row.size) throw new ArtifactCorruptError(sha256, '', this.describe(), `has ${size} bytes in its chunks, not the ${row.size} recorded`);
  }

  async has(sha256: string): Promise<boolean> {
    const [row] = await this.db
      .select({ one: sql<number>`1` })
      .from(artifacts)
      .where(eq(artifacts.sha256, sha256));
    return !!row;
  }

  async *list(): AsyncIterable<StoredArtifact> {
    let after = '';
    for (;;) {
      const page = await this.db
        .select({ sha256: artifacts.sha256, size: artifacts.size, publishedAt: artifacts.createdAt })
        .from(artifacts)
        .where(gt(artifacts.sha256, after))
        .orderBy(asc(artifacts.sha256))
        .limit(1000);
      yield* page;
      if (page.length < 1000) return;
      after = page.at(-1)!.sha256;
    }
  }

  /** Under the publish lock of the hash: a concurrent publish of the same bytes either finishes first (and is deleted) or starts after. */
  async delete(sha256: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_catalog.pg_advisory_xact_lock(${PUBLISH_LOCK_CLASS}::int4, ${lockKey(sha256)}::int4)`);
      await tx.delete(artifacts).where(eq(artifacts.sha256, sha256));
      await tx.delete(artifactChunks).where(eq(artifactChunks.sha256, sha256));
    });
  }

  describe(): string {
    return 'database';
  }
}
