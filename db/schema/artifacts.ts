import { bigint, customType, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * An artifact held by the `database` artifact backend (lib/artifacts): present once every
 * chunk is in, so a reader never sees a half-written artifact. Other backends keep no rows here.
 */
export const artifacts = pgTable('artifacts', {
  sha256: text('sha256').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull(),
  chunks: integer('chunks').notNull(),
  /** the host that published it (CRUCIBLE_NODE or the hostname) */
  publishedBy: text('published_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The bytes of a `database` artifact, in order (a chunk is at most a few MiB: never a whole artifact in one value). */
export const artifactChunks = pgTable(
  'artifact_chunks',
  {
    sha256: text('sha256').notNull(),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sha256, t.seq] })],
);
