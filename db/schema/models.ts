import { bigint, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { ModelFile } from '@/core/models';

/**
 * A registered Hugging Face model (`crucible models import`): what it is (architecture,
 * parameters, dtype, chat template, config.json as imported) and its files, each an artifact
 * in the artifact store under its sha256 (server/models/service.ts), so any worker host
 * fetches the same bytes by hash.
 */
export const models = pgTable('models', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  architecture: text('architecture').notNull(),
  parameters: bigint('parameters', { mode: 'number' }).notNull(),
  /** the stored weights' dtype: F32, F16 or BF16, or e.g. "BF16+F32" when tensors differ */
  dtype: text('dtype').notNull(),
  /** sha256 of tokenizer.json */
  tokenizerSha256: text('tokenizer_sha256').notNull(),
  /** sha256 of model.safetensors; for a sharded checkpoint, of its `sha256sum`-style listing (index and shards, by name) */
  weightsSha256: text('weights_sha256').notNull(),
  /** the Jinja chat template (tokenizer_config.json or chat_template.jinja); null when the model has none */
  chatTemplate: text('chat_template'),
  /** config.json as imported */
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  /** the files kept (config, tokenizer, weights), each an artifact by sha256 */
  files: jsonb('files').$type<ModelFile[]>().notNull(),
  /** all files' bytes together */
  bytes: bigint('bytes', { mode: 'number' }).notNull(),
  /** the directory it was imported from, on the importing host (informational) */
  source: text('source'),
  /** the audit actor who imported it, e.g. `cli:root`, `user:alice` */
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
