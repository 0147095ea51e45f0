// The change feed the columnar analytics store reads (docs/analytics-engine.md, "Fed by the change path, exactly
// once"): the corpus's change path appends one row per batch to analytics_outbox in the writer's transaction
// (migration 0020), and the store's applier reads the rows in seq order and trims them once applied. Nothing here
// knows which engine the store is.
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * One row per applied batch of the corpus, written only while a consumer is registered: the corpus version the batch
 * made and the ids of the posts and profiles it removed, added or changed (the applier reads their current rows).
 * `reset` marks a batch that emptied the corpus first (corpus_truncate): the store drops everything it holds. The id
 * arrays are stored out of line uncompressed (STORAGE EXTERNAL, migration 0053: pglz took 140 ms for 50,000 ids).
 */
export const analyticsOutbox = pgTable('analytics_outbox', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  corpusVersion: bigint('corpus_version', { mode: 'number' }).notNull(),
  postIds: bigint('post_ids', { mode: 'number' }).array().notNull(),
  profileIds: bigint('profile_ids', { mode: 'number' }).array().notNull(),
  /** Posts whose tags changed (post_tags written), not their rows: the store reads only their tags again. */
  tagPostIds: bigint('tag_post_ids', { mode: 'number' })
    .array()
    .notNull()
    .default(sql`'{}'::bigint[]`),
  reset: boolean('reset').notNull().default(false),
  writtenAt: timestamp('written_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * At most one row: present while a store consumes the outbox (without it the change path writes nothing, so the
 * outbox never grows without a reader), with the last seq the store has applied.
 */
export const analyticsConsumer = pgTable(
  'analytics_consumer',
  {
    /** Always true: the table holds one row at most. */
    id: boolean('id').primaryKey().default(true),
    appliedSeq: bigint('applied_seq', { mode: 'number' }).notNull().default(0),
    registeredAt: timestamp('registered_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The process whose store consumes the outbox (a token it drew when it took the store's lock): a position is
     * recorded only by its owner, so a process that lost the store to another one cannot move it (migration 0022).
     */
    owner: uuid('owner'),
  },
  (t) => [
    check('analytics_consumer_one_row', sql`${t.id}`),
    check('analytics_consumer_seq', sql`${t.appliedSeq} >= 0`),
  ],
);
