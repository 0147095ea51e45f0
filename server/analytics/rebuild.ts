// A fresh store from PostgreSQL: every profile and post (with the post's own lexemes, tsvector_to_array(search)) read
// in batches through cursors of one snapshot, loaded into a database of its own and swapped in when complete, so that
// a rebuild cut short leaves the store as it was.
import type pg from 'pg';
import { ensureLayout, STORE_DATABASE } from './layout';
import type { AnalyticsStore } from './store';

/** Where a rebuild loads before the swap; dropped when a rebuild starts, so one cut short is thrown away. */
const NEXT_DATABASE = `${STORE_DATABASE}_next`;
export const DEFAULT_REBUILD_BATCH = 5_000;

export interface RebuildOptions {
  /** Rows a fetch and an insert. */
  batch?: number;
  /** Posts loaded so far, of `total` (counted in the same snapshot). */
  onProgress?(done: number, total: number): void;
}

export interface RebuildResult {
  posts: number;
  profiles: number;
}

const PROFILES = `SELECT id::text AS id, platform, handle, followers, coalesce(country, '') AS country FROM profiles`;
// Time in whole ms, rounded down: then `ts < to` and `ts >= from` (ms bounds) agree with PostgreSQL's microseconds.
const POSTS = `SELECT id::text AS id, floor(extract(epoch FROM posted_at) * 1000)::int8::text AS ts, author_id::text AS author_id,
    platform, coalesce(language, '') AS lang, kind, media, likes, comments, shares, engagement, sentiment,
    CASE sentiment_label WHEN 'positive' THEN 1 WHEN 'negative' THEN -1 ELSE 0 END AS label,
    tsvector_to_array(search) AS words, text
  FROM posts`;

/** Reads `sql` through a cursor, `batch` rows at a time, handing each batch to `load` while the next is read. */
async function streamInto(
  client: pg.PoolClient,
  name: string,
  sql: string,
  batch: number,
  load: (rows: object[]) => Promise<void>,
): Promise<number> {
  await client.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`);
  let loading: Promise<void> = Promise.resolve();
  let count = 0;
  for (;;) {
    const { rows } = await client.query<object>(`FETCH ${batch} FROM ${name}`);
    await loading;
    if (rows.length === 0) break;
    count += rows.length;
    loading = load(rows);
  }
  await client.query(`CLOSE ${name}`);
  return count;
}

/** The rows as JSONEachRow, their columns named (an EPHEMERAL column such as posts.words is set only when named). */
const insert = (table: string, rows: object[]) =>
  `INSERT INTO ${NEXT_DATABASE}.${table} (${Object.keys(rows[0]!).join(', ')}) FORMAT JSONEachRow\n` +
  `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;

export async function rebuildStore(
  pool: pg.Pool,
  store: AnalyticsStore,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const batch = options.batch ?? DEFAULT_REBUILD_BATCH;
  await store.exec(`DROP DATABASE IF EXISTS ${NEXT_DATABASE} SYNC`);
  await ensureLayout(store, NEXT_DATABASE);
  const client = await pool.connect();
  let result: RebuildResult;
  try {
    // One snapshot for the profiles, the posts and their count.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM posts');
    const total = Number(rows[0]!.n);
    options.onProgress?.(0, total);
    const profiles = await streamInto(client, 'rebuild_profiles', PROFILES, batch, (batchRows) =>
      store.exec(insert('profiles', batchRows)),
    );
    let done = 0;
    const posts = await streamInto(client, 'rebuild_posts', POSTS, batch, async (batchRows) => {
      await store.exec(insert('posts', batchRows));
      done += batchRows.length;
      options.onProgress?.(done, total);
    });
    await client.query('COMMIT');
    result = { posts, profiles };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  // The token table from the posts' hashes in one pass, then each table merged into one sorted part.
  await store.exec(
    `INSERT INTO ${NEXT_DATABASE}.tok SELECT arrayJoin(toks), ts, id FROM ${NEXT_DATABASE}.posts`,
  );
  for (const table of ['posts', 'tok', 'profiles'])
    await store.exec(`OPTIMIZE TABLE ${NEXT_DATABASE}.${table} FINAL`);
  // The swap: the old store goes, the new one takes its name. Between the two a reader finds no store (and rebuilds
  // or answers from PostgreSQL), never a half-loaded one.
  await store.exec(`DROP DATABASE IF EXISTS ${STORE_DATABASE} SYNC`);
  await store.exec(`RENAME DATABASE ${NEXT_DATABASE} TO ${STORE_DATABASE}`);
  return result;
}
