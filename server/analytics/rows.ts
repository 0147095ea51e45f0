// What the store holds of PostgreSQL's rows, read the same way by a rebuild (every row, through cursors of one
// snapshot) and by the change feed's applier (the rows of the posts and profiles that changed): the SELECTs that shape
// them, the INSERT that loads them, and the token table derived from the loaded posts.
import type { AnalyticsStore } from './store';

/** The profiles' rows, for `WHERE condition` over `profiles`. */
export const profileRowsSql = (condition = 'true') =>
  `SELECT id::text AS id, platform, handle, followers, coalesce(country, '') AS country, verified
  FROM profiles WHERE ${condition}`;

/**
 * The posts' rows, for `WHERE condition` over `posts`. Time in whole ms, rounded down: then `ts < to` and `ts >= from`
 * (ms bounds) agree with PostgreSQL's microseconds. `words` are the post's own lexemes (tsvector_to_array(search)).
 */
export const postRowsSql = (condition = 'true') =>
  `SELECT id::text AS id, floor(extract(epoch FROM posted_at) * 1000)::int8::text AS ts, author_id::text AS author_id,
    platform, coalesce(language, '') AS lang, kind, media, likes, comments, shares, engagement, views::text AS views,
    sentiment, hashtags, mentions, domains,
    CASE sentiment_label WHEN 'positive' THEN 1 WHEN 'negative' THEN -1 ELSE 0 END AS label,
    tsvector_to_array(search) AS words, text
  FROM posts WHERE ${condition}`;

/** The rows as JSONEachRow, their columns named (an EPHEMERAL column such as posts.words is set only when named). */
export const insertRowsSql = (db: string, table: string, rows: object[]) =>
  `INSERT INTO ${db}.${table} (${Object.keys(rows[0]!).join(', ')}) FORMAT JSONEachRow\n` +
  `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;

/** Loads rows read by profileRowsSql / postRowsSql into `db.table`. */
export async function insertRows(store: AnalyticsStore, db: string, table: string, rows: object[]) {
  if (rows.length) await store.exec(insertRowsSql(db, table, rows));
}

/** The token table's rows of the posts of `db.posts` that match `condition` (every post by default). */
export const fillTokens = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(`INSERT INTO ${db}.tok SELECT arrayJoin(toks), ts, id FROM ${db}.posts WHERE ${condition}`);
