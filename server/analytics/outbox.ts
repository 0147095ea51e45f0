// The analytics store's side of the change feed (migration 0020, docs/analytics-engine.md): a store registers itself
// as the outbox's consumer, reads the batches the corpus's writers appended in seq order (which is their commit
// order), and records each position it has applied, which trims the rows up to it. Engine-agnostic: the rows carry
// ids and corpus versions only; the applier reads the current posts and profiles from PostgreSQL itself.
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { analyticsConsumer, analyticsOutbox } from '@server/db/analytics-schema';
import { CORPUS_LOCK } from '@server/db/corpus-lock';
import type { Db } from '@server/db/database';

/** The largest batch a reader may ask for at once (a row may carry tens of thousands of ids). */
export const OUTBOX_READ_MAX = 1_000;

export class OutboxError extends Error {
  override name = 'OutboxError';
}

export interface OutboxBatch {
  seq: number;
  /** The corpus version the batch made (corpus_state.version right after it). */
  corpusVersion: number;
  /** Posts the batch removed, added or changed, ascending: the store deletes them all and inserts their rows now. */
  postIds: number[];
  /** Profiles the batch added, changed or removed, ascending. */
  profileIds: number[];
  /** Posts whose tags (post_tags) changed, not their rows, ascending (migration 0044): the store reads their tags again. */
  tagPostIds: number[];
  /** The batch emptied the corpus first (corpus_truncate): the store drops everything before applying it. */
  reset: boolean;
}

/**
 * The outbox takes no plain write (the corpus guard, migration 0033): its consumer trims what it applied, and empties
 * it when unregistered, on the change path (the mark corpus_changes_begin() sets, for this transaction).
 */
const CHANGE_PATH = sql`SELECT set_config('murmur.corpus_writer', 'on', true)`;

export interface ConsumerPosition {
  /** The last seq the store has applied (0 before any). */
  appliedSeq: number;
  /** The corpus version when the position was read, in the same snapshot. */
  corpusVersion: number;
}

function position(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new OutboxError(`${what} must be a whole number of 0 or more, got ${String(value)}`);
  }
  return value;
}

/**
 * Registers the store as the outbox's consumer (idempotent: a registered one keeps its position). Takes the corpus
 * lock, so no writer is half-way through a batch it decided not to record: every batch committed after this
 * returns is in the outbox, and the returned corpus version is what a rebuild's snapshot must start from.
 */
export async function registerConsumer(db: Db, owner?: string): Promise<ConsumerPosition> {
  return db.transaction(async (tx) => {
    await tx.execute(CORPUS_LOCK);
    await tx.insert(analyticsConsumer).values({ id: true }).onConflictDoNothing();
    // The registering process owns the position from here on (ConsumerTakenOver for the one before).
    if (owner !== undefined) await tx.update(analyticsConsumer).set({ owner });
    return (await consumerPosition(tx))!;
  });
}

/**
 * Makes `owner` the registered consumer's owner (nothing when none is registered: a rebuild registers it). The
 * process that took the store's lock calls it before it reconciles its store with the consumer's position.
 */
export async function claimConsumer(db: Db, owner: string): Promise<void> {
  await db.update(analyticsConsumer).set({ owner });
}

/** markApplied() by a process that no longer owns the consumer: another process's store took it over. */
export class ConsumerTakenOver extends OutboxError {
  override name = 'ConsumerTakenOver';
}

/**
 * Unregisters the consumer and empties the outbox (under the corpus lock, so no batch is half-written): writers stop
 * recording. Returns whether one was registered.
 */
export async function unregisterConsumer(db: Db): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.execute(CORPUS_LOCK);
    const removed = await tx.delete(analyticsConsumer).returning({ id: analyticsConsumer.id });
    await tx.execute(CHANGE_PATH);
    await tx.delete(analyticsOutbox);
    return removed.length > 0;
  });
}

/** The consumer's position, or null when no store consumes the outbox. */
export async function consumerPosition(db: Db): Promise<ConsumerPosition | null> {
  const { rows } = await db.execute<{ applied_seq: string; version: string }>(
    sql`SELECT c.applied_seq, s.version FROM analytics_consumer c, corpus_state s`,
  );
  const row = rows[0];
  return row ? { appliedSeq: Number(row.applied_seq), corpusVersion: Number(row.version) } : null;
}

/** `limit` as a number of batches to read at once (1 to OUTBOX_READ_MAX), or an OutboxError. */
function readLimit(limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > OUTBOX_READ_MAX) {
    throw new OutboxError(`limit must be a whole number from 1 to ${OUTBOX_READ_MAX}, got ${String(limit)}`);
  }
  return limit;
}

/** How many ids of each kind a batch names, and whether it empties the store: what a round is chosen by. */
export interface OutboxSize {
  seq: number;
  posts: number;
  profiles: number;
  tagPosts: number;
  reset: boolean;
}

/**
 * The sizes of up to `limit` committed batches after `afterSeq`, in seq order, their ids not read: a round takes a
 * few of them (server/analytics/applier.ts), and the ids of every batch waiting (a rule's past matches are tens of
 * batches of 50,000) took up to a second a round to read and parse.
 */
export async function outboxSizes(db: Db, afterSeq: number, limit: number): Promise<OutboxSize[]> {
  position(afterSeq, 'afterSeq');
  readLimit(limit);
  const count = (ids: AnyPgColumn) => sql<number>`coalesce(cardinality(${ids}), 0)::int`;
  return db
    .select({
      seq: analyticsOutbox.seq,
      posts: count(analyticsOutbox.postIds),
      profiles: count(analyticsOutbox.profileIds),
      tagPosts: count(analyticsOutbox.tagPostIds),
      reset: analyticsOutbox.reset,
    })
    .from(analyticsOutbox)
    .where(gt(analyticsOutbox.seq, afterSeq))
    .orderBy(asc(analyticsOutbox.seq))
    .limit(limit);
}

/** Up to `limit` committed batches after `afterSeq`, in seq order (commit order). */
export async function readOutbox(db: Db, afterSeq: number, limit: number): Promise<OutboxBatch[]> {
  position(afterSeq, 'afterSeq');
  readLimit(limit);
  const rows = await db
    .select({
      seq: analyticsOutbox.seq,
      corpusVersion: analyticsOutbox.corpusVersion,
      postIds: analyticsOutbox.postIds,
      profileIds: analyticsOutbox.profileIds,
      tagPostIds: analyticsOutbox.tagPostIds,
      reset: analyticsOutbox.reset,
    })
    .from(analyticsOutbox)
    .where(gt(analyticsOutbox.seq, afterSeq))
    .orderBy(asc(analyticsOutbox.seq))
    .limit(limit);
  return rows.map((row) => ({
    ...row,
    postIds: row.postIds.map(Number),
    profileIds: row.profileIds.map(Number),
    tagPostIds: row.tagPostIds.map(Number),
  }));
}

/** The outbox's newest batch (null when it has none). */
export async function newestBatch(db: Db): Promise<number | null> {
  const [row] = (
    await db.execute<{ seq: string | null }>(sql`SELECT max(seq)::text AS seq FROM analytics_outbox`)
  ).rows;
  return row?.seq ? Number(row.seq) : null;
}

/**
 * Whether the outbox has a batch after `afterSeq` that names posts or profiles, or empties the store (its ids not
 * read): what the applier's pace holds for. A batch of tags alone (a rule's rows, a person's tagging) is a few short
 * rows a post, and is not held.
 */
export async function hasRowBatchesAfter(db: Db, afterSeq: number): Promise<boolean> {
  position(afterSeq, 'afterSeq');
  const rows = await db
    .select({ seq: analyticsOutbox.seq })
    .from(analyticsOutbox)
    .where(
      and(
        gt(analyticsOutbox.seq, afterSeq),
        sql`(${analyticsOutbox.reset} OR cardinality(${analyticsOutbox.postIds}) > 0
          OR cardinality(${analyticsOutbox.profileIds}) > 0)`,
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/**
 * Records that the store has applied every batch up to `seq` and trims those rows, in one transaction. Refuses a
 * position behind the recorded one (a store never un-applies) and one that names no batch; given the caller's
 * `owner`, refuses it when another process registered since (ConsumerTakenOver).
 */
export async function markApplied(db: Db, seq: number, owner?: string): Promise<void> {
  position(seq, 'seq');
  await db.transaction(async (tx) => {
    const [consumer] = await tx.select().from(analyticsConsumer).for('update');
    if (!consumer) throw new OutboxError('No consumer is registered: registerConsumer() first');
    if (owner !== undefined && consumer.owner !== owner) {
      throw new ConsumerTakenOver(
        "Another process's analytics store consumes the outbox now: this one's position is not recorded",
      );
    }
    if (seq < consumer.appliedSeq) {
      throw new OutboxError(`seq ${seq} is behind the applied position ${consumer.appliedSeq}`);
    }
    if (seq === consumer.appliedSeq) return;
    const [batch] = await tx
      .select({ seq: analyticsOutbox.seq })
      .from(analyticsOutbox)
      .where(and(eq(analyticsOutbox.seq, seq), gt(analyticsOutbox.seq, consumer.appliedSeq)));
    if (!batch) throw new OutboxError(`seq ${seq} is not a batch of the outbox`);
    await tx.update(analyticsConsumer).set({ appliedSeq: seq });
    await tx.execute(CHANGE_PATH);
    await tx.delete(analyticsOutbox).where(lte(analyticsOutbox.seq, seq));
  });
}

/**
 * The consumer's position as a snapshot sees it (for a rebuild, in its own transaction): the last batch committed
 * before the snapshot (seq order is commit order, so every later batch has a larger seq), or the applied position when
 * those were trimmed, and the corpus version then. No row: no consumer is registered.
 */
export const SNAPSHOT_POSITION_SQL = `SELECT greatest(c.applied_seq, coalesce((SELECT max(seq) FROM analytics_outbox), 0))
    AS seq, s.version FROM analytics_consumer c, corpus_state s`;

/** One batch of the outbox by its seq (null when it is not there: trimmed, or never committed). */
export async function outboxBatch(db: Db, seq: number): Promise<OutboxBatch | null> {
  position(seq, 'seq');
  const [batch] = await readOutbox(db, Math.max(0, seq - 1), 1);
  return batch?.seq === seq ? batch : null;
}

/**
 * Makes every commit this process has seen durable: the corpus's bulk writers commit with synchronous_commit off
 * (visible before they are on disk), and a store must not keep a change that a PostgreSQL crash would take back. A
 * transaction given an id and committed synchronously flushes the write-ahead log up to its commit, past every commit
 * seen before it.
 */
export async function flushCommitted(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL synchronous_commit = on`);
    await tx.execute(sql`SELECT pg_current_xact_id()`);
  });
}
