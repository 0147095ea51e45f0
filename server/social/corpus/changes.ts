// The corpus's change path on this side (migration 0016, docs/scaling-citus.md §3): every write of posts goes through the
// two change tables of the writer's transaction, corpus_removed (rows as they were) and corpus_added (as they will
// be), and corpus_changes_apply() then writes posts, their external keys, the corpus version and the analytics
// store's outbox from them, in the same transaction. corpus_changes_begin() marks the transaction as the change
// path's: the corpus tables refuse writes in a transaction without that mark (migration 0018). No triggers: the same statements run when posts are
// partitioned, and would run on a distributed PostgreSQL.
import { sql } from 'drizzle-orm';
import { bigint, pgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { Db } from '@server/db/database';
import { postColumns, profiles } from '@server/db/social-schema';

/** The change path's corpus_added, for writers that build rows with Drizzle (tests' fixtures, tools). */
const corpusAdded = pgTable('corpus_added', {
  id: bigint('id', { mode: 'number' })
    .notNull()
    .default(sql`nextval('posts_id_seq')`),
  ...postColumns(),
});

export interface AppliedChanges {
  /** Rows written from corpus_added. */
  added: number;
  /** Rows taken away from corpus_removed (a changed post is one of each). */
  removed: number;
}

/** Takes the corpus lock and opens this transaction's change tables (idempotent within a transaction). */
export async function beginChanges(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT corpus_changes_begin()');
}

/** Applies the change tables (see the top of this file) and empties them for the next batch. */
export async function applyChanges(client: pg.ClientBase): Promise<AppliedChanges> {
  const { rows } = await client.query<{ added: string; removed: string }>(
    'SELECT added, removed FROM corpus_changes_apply()',
  );
  return { added: Number(rows[0]!.added), removed: Number(rows[0]!.removed) };
}

type PostInsert = typeof corpusAdded.$inferInsert;

/**
 * Inserts posts through the change path in one transaction and returns their ids in the order given: what a direct
 * INSERT INTO posts would do, with the keys, corpus version and outbox kept.
 */
export async function insertPosts(db: Db, rows: readonly PostInsert[]): Promise<number[]> {
  if (rows.length === 0) return [];
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT corpus_changes_begin()`);
    const inserted = await tx
      .insert(corpusAdded)
      .values([...rows])
      .returning({ id: corpusAdded.id });
    await tx.execute(sql`SELECT corpus_changes_apply()`);
    return inserted.map((row) => row.id);
  });
}

type ProfileInsert = typeof profiles.$inferInsert;

/**
 * Inserts profiles in one transaction through the change path and returns their ids in the order given: new profiles
 * have no posts, so only the corpus version and the analytics outbox follow them.
 */
export async function insertProfiles(db: Db, rows: readonly ProfileInsert[]): Promise<number[]> {
  if (rows.length === 0) return [];
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT corpus_changes_begin()`);
    const inserted = await tx
      .insert(profiles)
      .values([...rows])
      .returning({ id: profiles.id });
    const ids = inserted.map((row) => row.id);
    await tx.execute(sql`SELECT corpus_profiles_added(${`{${ids.join(',')}}`}::bigint[])`);
    return ids;
  });
}
