// The store's tables (docs/analytics-engine.md, "The design Murmur builds") and their layout version. A store of an
// older layout is reported, not altered: the caller rebuilds it from PostgreSQL (npm run analytics:rebuild).
import type { AnalyticsStore } from './store';

/** Raised whenever a table's columns, keys or meaning change: a store with a lower number is rebuilt. */
export const LAYOUT_VERSION = 4;
/** The database the dashboards read. */
export const STORE_DATABASE = 'murmur';

/**
 * Every table's parts are written to disk (their files and directory) before an insert returns: ClickHouse does not
 * by default, so after a power loss (not a killed process) the position recorded after a round's rows could outlive
 * those rows. Applied to a store's existing tables too (ensureLayout), which changes no data.
 */
export const DURABLE = 'fsync_after_insert = 1, fsync_part_directory = 1';

/** The dictionary of the posts' columns by id (see tables()). */
export const POSTS_BY_ID = 'posts_by_id';
/** Its columns, as the posts table has them (low-cardinality strings as plain strings). */
export const POSTS_BY_ID_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['ts', 'Int64'],
  ['q', 'UInt32'],
  ['author_id', 'UInt64'],
  ['platform', 'String'],
  ['lang', 'String'],
  ['kind', 'String'],
  ['media', 'String'],
  ['likes', 'UInt32'],
  ['comments', 'UInt32'],
  ['shares', 'UInt32'],
  ['engagement', 'UInt32'],
  ['views', 'Nullable(UInt64)'],
  ['sentiment', 'Float32'],
  ['label', 'Int8'],
];

/** The posts rows changed since posts_by_id was loaded (see ensurePostsById), and their dictionary. */
const POSTS_DELTA = 'posts_delta';
export const POSTS_DELTA_BY_ID = 'posts_delta_by_id';
/**
 * The most rows the delta holds before a round loads posts_by_id again and empties it: a round's reload of the delta
 * costs in proportion to its rows (0.15 s of CPU at 100,000), a load of posts_by_id in proportion to the posts (12–14 s
 * at 10M posts).
 */
const POSTS_DELTA_MAX_ROWS = 100_000;

const dictionaryColumns = () =>
  `id UInt64, ${POSTS_BY_ID_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')}`;

/**
 * The dashboards' database's posts_by_id: a dictionary of the posts' columns the dashboards' statements read
 * (POSTS_BY_ID_COLUMNS), by id, so that a statement over the posts a query's token slices name looks their columns
 * up instead of scanning the range (insights/scope.ts, storeFrom). HASHED_ARRAY: one hash of the ids to a row of
 * column arrays, so its size follows the number of posts (a FLAT layout's arrays follow the largest id, and a store
 * whose ids are sparse would not fit in memory), and one lookup serves every column a statement reads. Made once the
 * tables are in that database (a dictionary of another database reading them would keep the swap from dropping
 * them); loaded at its first use.
 *
 * A dictionary is only ever loaded whole, so a round does not load it again: it adds its posts' rows to posts_delta
 * (with its sequence number), whose dictionary posts_delta_by_id (each id's latest row) it loads again, and a lookup
 * takes an id's row from the delta when it has one (storeFrom). Once the delta passes POSTS_DELTA_MAX_ROWS a round
 * loads posts_by_id again from the posts and empties the delta. Both happen within the round's window, so a reader
 * finds the dictionaries of the same corpus version as the tables. A post the round deleted needs no row: its
 * tokens are gone, so no statement looks it up.
 */
export async function ensurePostsById(store: AnalyticsStore) {
  const db = STORE_DATABASE;
  await store.exec(`CREATE DICTIONARY IF NOT EXISTS ${db}.${POSTS_BY_ID} (${dictionaryColumns()})
    PRIMARY KEY id SOURCE(CLICKHOUSE(DB '${db}' TABLE 'posts')) LAYOUT(HASHED_ARRAY()) LIFETIME(0)`);
  const columns = POSTS_BY_ID_COLUMNS.map(([name, type]) =>
    name === 'q' ? `q ${type} DEFAULT intDiv(ts, 900000)` : `${name} ${type}`,
  );
  await store.exec(`CREATE TABLE IF NOT EXISTS ${db}.${POSTS_DELTA} (seq UInt64, id UInt64, ${columns.join(', ')})
    ENGINE = MergeTree ORDER BY (id, seq) SETTINGS ${DURABLE}`);
  const names = POSTS_BY_ID_COLUMNS.map(([name]) => name).join(', ');
  await store.exec(`CREATE DICTIONARY IF NOT EXISTS ${db}.${POSTS_DELTA_BY_ID} (${dictionaryColumns()})
    PRIMARY KEY id SOURCE(CLICKHOUSE(QUERY 'SELECT id, ${names} FROM ${db}.${POSTS_DELTA} ORDER BY seq DESC LIMIT 1 BY id'))
    LAYOUT(HASHED_ARRAY()) LIFETIME(0)`);
}

/**
 * Loads posts_by_id again from the posts table and empties the delta, within the writer's window (a reader then
 * finds the dictionaries of the same corpus version as the tables); a dictionary never loaded is loaded here.
 */
export async function reloadPostsById(store: AnalyticsStore) {
  await store.exec(`TRUNCATE TABLE ${STORE_DATABASE}.${POSTS_DELTA}`);
  await store.exec(`SYSTEM RELOAD DICTIONARY ${STORE_DATABASE}.${POSTS_BY_ID}`);
  await store.exec(`SYSTEM RELOAD DICTIONARY ${STORE_DATABASE}.${POSTS_DELTA_BY_ID}`);
}

/**
 * A round's posts into the dictionaries, within its window: their current rows (as postRowsSql reads them; the
 * columns beyond the dictionary's are left out) into the delta and its dictionary loaded again, or posts_by_id loaded
 * again once the delta has passed POSTS_DELTA_MAX_ROWS.
 */
export async function followPosts(store: AnalyticsStore, seq: number, rows: readonly object[]) {
  const db = STORE_DATABASE;
  if (rows.length > 0) {
    const names = ['seq', 'id', ...POSTS_BY_ID_COLUMNS.map(([name]) => name).filter((name) => name !== 'q')];
    const lines = (rows as ReadonlyArray<Record<string, unknown>>).map((row) =>
      JSON.stringify(Object.fromEntries(names.map((name) => [name, name === 'seq' ? seq : row[name]]))),
    );
    await store.exec(
      `INSERT INTO ${db}.${POSTS_DELTA} (${names.join(', ')}) FORMAT JSONEachRow\n${lines.join('\n')}\n`,
    );
  }
  const [held] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${db}.${POSTS_DELTA}`);
  if (Number(held?.n) > POSTS_DELTA_MAX_ROWS) await reloadPostsById(store);
  else await store.exec(`SYSTEM RELOAD DICTIONARY ${db}.${POSTS_DELTA_BY_ID}`);
}

/** ClickHouse names for a database: letters, digits and underscores only (they are spliced into the DDL). */
function checkName(database: string) {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`Not a store database name: ${database}`);
}

/**
 * The tables of one layout version, in database `db`:
 * - posts: one row a post (PostgreSQL's id and columns; time in ms and its 15-minute UTC bucket; the post's
 *   PostgreSQL lexemes as sipHash64 hashes, from the `words` given at insert, with each lexeme's positions as its
 *   tsvector holds them (`pos`, parallel to `toks`); the hashes of its `post_text_grams` (`gtoks`); hashtags, mentions
 *   and link domains as PostgreSQL has them, lower case; the text, and PostgreSQL's lower(text) where it differs from
 *   the ASCII lowering ClickHouse's lower() does (`ltext`), for substring rechecks as ILIKE makes them),
 *   ordered by id with a min-max skip index on time.
 * - tok: every (token, post) pair ordered by token then time, so a term over a range reads one contiguous slice. The
 *   tokens: each lexeme (sipHash64(lexeme), with its positions for phrases and NEAR), each hashtag
 *   (sipHash64('#', tag)), each mention (sipHash64('@', handle)) and each gram of post_text_grams (sipHash64('g',
 *   gram)); only lexemes have positions.
 * - lexicon: each lexeme's text and hash, sorted by text, so a prefix (`barist*`) finds its tokens. It only grows
 *   (a lexeme no post has any more finds no post); a rebuild starts it afresh.
 * - profiles: the authors (followers for reach; handle, PostgreSQL's lower(handle) and country for author: and
 *   country:; verified as listed).
 * - layout: the version these tables were made by.
 */
function tables(db: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.posts (
      id UInt64, ts Int64, q UInt32 DEFAULT intDiv(ts, 900000), author_id UInt64,
      platform LowCardinality(String), lang LowCardinality(String), kind LowCardinality(String),
      media LowCardinality(String), likes UInt32, comments UInt32, shares UInt32, engagement UInt32,
      views Nullable(UInt64), sentiment Float32, label Int8,
      hashtags Array(String), mentions Array(String), domains Array(String),
      words Array(String) EPHEMERAL, toks Array(UInt64) DEFAULT arrayMap(w -> sipHash64(w), words),
      pos Array(Array(UInt16)),
      grams Array(String) EPHEMERAL, gtoks Array(UInt64) DEFAULT arrayDistinct(arrayMap(g -> sipHash64('g', g), grams)),
      text String CODEC(ZSTD(3)), ltext Nullable(String) CODEC(ZSTD(3)),
      INDEX ts_mm ts TYPE minmax GRANULARITY 1
    ) ENGINE = MergeTree ORDER BY id SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.tok (tok UInt64, ts Int64, post UInt64, pos Array(UInt16) CODEC(ZSTD(1)))
      ENGINE = MergeTree ORDER BY (tok, ts, post) SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.lexicon (word String, tok UInt64 DEFAULT sipHash64(word))
      ENGINE = ReplacingMergeTree ORDER BY word SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.profiles (
      id UInt64, platform LowCardinality(String), handle String, lhandle String, followers UInt64,
      country LowCardinality(String), verified Bool
    ) ENGINE = MergeTree ORDER BY id SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.layout (version UInt32, made_at DateTime64(3) DEFAULT now64(3))
      ENGINE = MergeTree ORDER BY tuple() SETTINGS ${DURABLE}`,
  ];
}

export type LayoutState =
  /** The tables were missing and are made now (empty). */
  | { state: 'created'; version: number }
  /** The store is of this code's layout. */
  | { state: 'current'; version: number }
  /** The store was made by another layout version (older: rebuild it; newer: this code is older than the store). */
  | { state: 'older' | 'newer'; version: number };

/** The layout version of the store in `db`, or null when it has none (a missing or unfinished store). */
export async function layoutVersion(store: AnalyticsStore, db = STORE_DATABASE): Promise<number | null> {
  checkName(db);
  const [table] = await store.query<{ n: string }>(
    `SELECT count() AS n FROM system.tables WHERE database = '${db}' AND name = 'layout'`,
  );
  if (Number(table?.n) === 0) return null;
  const [row] = await store.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${db}.layout`,
  );
  return row?.version ?? null;
}

/** A store made before DURABLE: its tables' parts written to disk from now on (a setting, not a layout change). */
export async function makeDurable(store: AnalyticsStore, db = STORE_DATABASE) {
  const tables = await store.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'
      AND create_table_query NOT LIKE '%fsync_after_insert%'`,
    { db },
  );
  for (const { name } of tables) await store.exec(`ALTER TABLE ${db}.${name} MODIFY SETTING ${DURABLE}`);
}

/** Makes the tables of LAYOUT_VERSION in `db` when the store has no layout; reports the version it has otherwise. */
export async function ensureLayout(store: AnalyticsStore, db = STORE_DATABASE): Promise<LayoutState> {
  checkName(db);
  const version = await layoutVersion(store, db);
  if (version !== null) {
    const state = version === LAYOUT_VERSION ? 'current' : version < LAYOUT_VERSION ? 'older' : 'newer';
    return { state, version };
  }
  await store.exec(`CREATE DATABASE IF NOT EXISTS ${db}`);
  for (const statement of tables(db)) await store.exec(statement);
  // Last: a store whose tables were cut short reads as having no layout and is made again.
  await store.exec(`INSERT INTO ${db}.layout (version) VALUES (${LAYOUT_VERSION})`);
  return { state: 'created', version: LAYOUT_VERSION };
}
