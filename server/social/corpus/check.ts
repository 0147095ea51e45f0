// `npm run corpus:check`: the one table PostgreSQL derives from the posts, their external keys (post_keys,
// docs/corpus-storage.md), recounted from the posts and compared both ways, and on request rebuilt from them. The guard
// (migration 0018) makes a difference impossible by accident; this finds and repairs one left by a deliberate bypass,
// a restore of some tables only, or a fault. The figures are the analytics store's, checked by server/analytics/check.ts.
import type pg from 'pg';

export interface TableDifference {
  table: 'post_keys';
  /** Rows stored. */
  rows: number;
  /** Stored rows the recount does not have (wrong or left behind). */
  stored: number;
  /** Recounted rows not stored (wrong or missing). */
  recounted: number;
}

export interface CorpusCheck {
  posts: number;
  tables: TableDifference[];
  /** Ids of posts whose external key an older post has too: a key can name one post only. */
  duplicates: number[];
}

// A key belongs to the oldest post that has it (the others are reported as duplicates).
const KEYS_RECOUNT = `SELECT DISTINCT ON (platform, external_id) platform, external_id, id, posted_at FROM posts
  ORDER BY platform, external_id, id`;

/** Recounts the keys from the posts (in one snapshot) and compares them with what is stored, both ways. */
export async function checkCorpus(client: pg.ClientBase): Promise<CorpusCheck> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    await client.query(`SET LOCAL work_mem = '64MB'`);
    const { rows: keys } = await client.query<{ rows: string; stored: string; recounted: string }>(
      `WITH s AS (SELECT platform, external_id, id, posted_at FROM post_keys), r AS (${KEYS_RECOUNT})
       SELECT (SELECT count(*) FROM s) AS rows, (SELECT count(*) FROM (TABLE s EXCEPT ALL TABLE r) x) AS stored,
         (SELECT count(*) FROM (TABLE r EXCEPT ALL TABLE s) x) AS recounted`,
    );
    const { rows } = await client.query<{ posts: string; duplicates: string[] | null }>(
      `SELECT (SELECT count(*) FROM posts) AS posts,
         (SELECT array_agg(id ORDER BY id) FROM (SELECT id, row_number() OVER (PARTITION BY platform, external_id
           ORDER BY id) AS n FROM posts) d WHERE n > 1) AS duplicates`,
    );
    const table: TableDifference = {
      table: 'post_keys',
      rows: Number(keys[0]!.rows),
      stored: Number(keys[0]!.stored),
      recounted: Number(keys[0]!.recounted),
    };
    return {
      posts: Number(rows[0]!.posts),
      tables: [table],
      duplicates: (rows[0]!.duplicates ?? []).map(Number),
    };
  } finally {
    await client.query('ROLLBACK');
  }
}

export const differs = (table: TableDifference) => table.stored + table.recounted > 0;

/**
 * Rebuilds the keys from the posts in one transaction of the change path (its lock keeps writers out; a failure leaves
 * everything as it was). Raises the corpus version: cached answers computed from the corpus as it was are invalid.
 * `onProgress` gets the posts done of the posts.
 */
export async function repairCorpus(
  client: pg.ClientBase,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT corpus_changes_begin()');
    await client.query(`SET LOCAL work_mem = '64MB'`);
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM posts');
    const total = Number(rows[0]!.n);
    onProgress(0, total);
    await client.query('TRUNCATE post_keys');
    await client.query(`INSERT INTO post_keys (platform, external_id, id, posted_at) ${KEYS_RECOUNT}`);
    onProgress(total, total);
    await client.query('SELECT corpus_touch()');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
