// The store's tables (docs/analytics-engine.md, "The design Murmur builds") and their layout version. A store of an
// older layout is brought forward by its steps where they exist (layout-steps.ts), and rebuilt from PostgreSQL
// otherwise (npm run analytics:rebuild).
import { postGramsSql, scriptsSql } from './matching/scripts';
import type { AnalyticsStore } from './store';

/**
 * Raised whenever a table's columns, keys or meaning change: a store with a lower number is brought forward by
 * LAYOUT_STEPS (layout-steps.ts) where they reach it, and rebuilt otherwise.
 */
export const LAYOUT_VERSION = 14;
/**
 * A post's `label` when its text gave too little to rate (posts.sentiment_rated false, migration 0041): the scorer
 * called it neutral, and the dashboards count it apart as "not rated" (docs/sentiment.md). Otherwise 1, 0 or -1
 * (positive, neutral, negative). Since layout 12; a post whose rating PostgreSQL does not know yet (null) is 0.
 */
export const NOT_RATED_LABEL = 2;
/** The database the dashboards read. */
export const STORE_DATABASE = 'murmur';

/**
 * Every table's parts are written to disk (their files and directory) before an insert returns: ClickHouse does not
 * by default, so after a power loss (not a killed process) the position recorded after a round's rows could outlive
 * those rows. Applied to a store's existing tables too (ensureLayout), which changes no data.
 */
export const DURABLE = 'fsync_after_insert = 1, fsync_part_directory = 1';

/** A post's `q`: its 15-minute UTC bucket, intDiv(ts, QUARTER_MS). */
export const QUARTER_MS = 900_000;

/**
 * The posts' columns each token row carries (as the posts table has them), so that a statement over the posts of a
 * query's token slices reads them from the slices (figures/scope.ts, storeFrom) instead of scanning the range.
 */
export const TOKEN_POST_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['author_id', 'UInt64'],
  ['platform', 'LowCardinality(String)'],
  ['lang', 'LowCardinality(String)'],
  ['kind', 'LowCardinality(String)'],
  ['media', 'LowCardinality(String)'],
  ['likes', 'UInt32'],
  ['comments', 'UInt32'],
  ['shares', 'UInt32'],
  ['engagement', 'UInt32'],
  ['views', 'Nullable(UInt64)'],
  ['sentiment', 'Float32'],
  ['label', 'Int8'],
  // The post's hashtags, mentions and link domains in one list, each once, each marked by its first byte (TAG_MARKS):
  // the conversation's tags of a text query counted from its token slices rather than the range's posts. ZSTD halves
  // it against the default LZ4 (65 against 127 bytes a post at 200,000 posts), read as fast.
  ['tags', 'Array(LowCardinality(String)) CODEC(ZSTD(1))'],
];

/**
 * The token rows' post columns with their post's id, time and quarter: what a long query's set of matches carries for
 * each post (figures/kept-sets.ts, rowsOf) and what storeFrom reads from the token rows or a set's rows.
 */
export const SET_ROW_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'UInt64'],
  ['ts', 'Int64'],
  ['q', 'UInt32'],
  ...TOKEN_POST_COLUMNS,
];

/**
 * The post's fields that have a token each in the token table, sipHash64(mark, value): a field filter
 * (`platform:tiktok lang:es`) reads its slice rather than every post of the range.
 */
export const FIELD_TOKEN_MARKS = { platform: 'p', lang: 'l' } as const;

/**
 * A Reddit post's subreddit, lower case ('' for every other post): rows.ts computes it from PostgreSQL's posts.url
 * (server/query/subreddit.ts), and the post has a token of it, sipHash64(SUBREDDIT_TOKEN_MARK, name), for
 * `subreddit:`. Since layout 14 (layout-steps.ts).
 */
export const SUBREDDIT_COLUMN = `subreddit LowCardinality(String) DEFAULT ''`;
export const SUBREDDIT_TOKEN_MARK = 'r';

/** The first byte of a `tags` element: which list it is of (the rest is the value). */
export const TAG_MARKS = { hashtags: '#', mentions: '@', domains: '/' } as const;

/** A post's `tags` as an expression over its own columns (the posts table's ALIAS, which the token rows copy). */
const TAGS_SQL = `arrayConcat(${Object.entries(TAG_MARKS)
  .map(([list, mark]) => `arrayMap(x -> concat('${mark}', x), arrayDistinct(${list}))`)
  .join(', ')})`;

/**
 * A post's text lower-cased, over the posts table: what a substring term is looked for in, the texts table holds and
 * the grams are computed from. ClickHouse's lowerUTF8 is ICU's full lower-casing, String.prototype.toLowerCase's
 * (the query side's and the reference's): the two agree on every code point, and on a final sigma (checked on chdb).
 */
export const LOWERED_TEXT = 'lowerUTF8(text)';

/**
 * A post's words, in order (server/query/README.md, "How words are matched"; test/support/reference/tokens.ts): each
 * maximal run of letters, combining marks and digits of the lower-cased text. re2's classes are those of its own
 * Unicode tables, older than V8's: a character assigned since (Unicode 16 and 17) is a separator here and a letter in
 * the query's words (matching/words.ts), so a word holding one is never found.
 */
const wordsOf = (lowered: string) => `extractAll(${lowered}, '[\\\\p{L}\\\\p{M}\\\\p{N}]+')`;
export const POST_WORDS = wordsOf(LOWERED_TEXT);
/** A post's words as written, in their own case: what a case-sensitive term (`{NASA}`) is looked for among. */
export const CASED_WORDS = wordsOf('text');

/**
 * A run of the text between spaces that is a link, an address or a host name: it holds `://`, or a `/`, `.` or `@`
 * between two word characters (`https://x.com/a`, `www.x.com`, `me@x.org`). The conversation leaves its words out
 * (server/social/insights/words.ts, WORD_RULE: "links and host names"); the query language finds them as any others.
 * Spaces are \p{Z} and the ASCII controls \t to \r, written out so that re2 and JavaScript read the class alike.
 */
const LINK_RUN =
  '[^\\\\p{Z}\\\\x{9}-\\\\x{D}]*(?:://|[\\\\p{L}\\\\p{M}\\\\p{N}][/.@][\\\\p{L}\\\\p{M}\\\\p{N}])[^\\\\p{Z}\\\\x{9}-\\\\x{D}]*';

/** The words of a post outside its links (LINK_RUN), in order: what the conversation counts. */
const CONVERSATION_WORDS = wordsOf(`replaceRegexpAll(${LOWERED_TEXT}, '${LINK_RUN}', ' ')`);

/** A post's sample hash, as PostgreSQL's post_sample_marks (migration 0006) computes it: (id × 40503) mod 65536. */
export const sampleHash = (id: string) => `((${id} * 40503) % 65536)`;
export const SAMPLE_HASH = sampleHash('id');

/**
 * The `texts` table's stretches by sample hash: stretch 0 holds the posts whose hash is below 1024 (the conversation's
 * pilot, 1/64 of the posts: PostgreSQL's PILOT_LEVEL 6), and each next one the hashes of one more bit, up to stretch 6
 * (32768–65535). The rows of a hash below a cut lie in the stretches up to textStretch(cut − 1): reading those reads
 * at most twice the rows asked for, and the pilot's exactly. As an expression over `h` (the bit length of h, at least
 * 10, less 10; `ceil(log2(h + 1))` is the bit length of every UInt16) and in JavaScript.
 */
const TEXT_STRETCH_BITS = 10;
const TEXT_STRETCH_SQL = `toUInt8(greatest(ceil(log2(h + 1)), ${TEXT_STRETCH_BITS}) - ${TEXT_STRETCH_BITS})`;
export const textStretch = (hash: number) =>
  Math.max(32 - Math.clz32(hash), TEXT_STRETCH_BITS) - TEXT_STRETCH_BITS;

/** The posts table's columns its sample-ordered copy holds (all but the text, positions and grams). */
const SAMPLED_COLUMN_TYPES: ReadonlyArray<readonly [string, string]> = [
  ['id', 'UInt64'],
  ['ts', 'Int64'],
  ['q', 'UInt32'],
  // The copy keeps the three lists themselves; their union is the posts' (an ALIAS) and the token rows'.
  ...TOKEN_POST_COLUMNS.filter(([name]) => name !== 'tags'),
  ['hashtags', 'Array(String)'],
  ['mentions', 'Array(String)'],
  ['domains', 'Array(String)'],
  ['toks', 'Array(UInt64)'],
];
export const SAMPLED_COLUMNS = SAMPLED_COLUMN_TYPES.map(([name]) => name);

/** ClickHouse names for a database: letters, digits and underscores only (they are spliced into the DDL). */
function checkName(database: string) {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`Not a store database name: ${database}`);
}

/**
 * The tables of one layout version, in database `db`:
 * - posts: one row a post (PostgreSQL's id and columns; time in ms and its 15-minute UTC bucket), with what the store
 *   computes from the text given at insert (layout 11; the grams since layout 10): its words (POST_WORDS), each once as
 *   a sipHash64 hash (`ptoks`) with the positions it has in the post, 1, 2, 3 … (`pos`, parallel to `ptoks`: the
 *   (hash, position) pairs sorted, then split where the hash changes, so in hash order); the hashes of its words
 *   outside links, each once (`toks`, what the conversation counts and its `term` refinement tests); the hashes of its
 *   grams (`gtoks`: postGramsSql) and their scripts (`scripts`, matching/scripts.ts); its hashtags, mentions and link
 *   domains as PostgreSQL has them, lower case (and `tags`, computed when read: the three lists in one, TAG_MARKS);
 *   a Reddit post's subreddit (SUBREDDIT_COLUMN, computed by rows.ts from posts.url); and the text. Ordered by id
 *   with a min-max skip index on time.
 * - tok: every (token, post) pair ordered by token then time, so a term over a range reads one contiguous slice, with
 *   the post's columns a dashboard groups by or sums (TOKEN_POST_COLUMNS; a post's rows are replaced whenever it
 *   changes, so they never differ from its posts row). The tokens: each word (sipHash64(word), with its positions
 *   for phrases and NEAR), each hashtag (sipHash64('#', tag)), each mention (sipHash64('@', handle)), each gram
 *   (sipHash64('g', gram)), the platform and language (FIELD_TOKEN_MARKS) and a Reddit post's subreddit
 *   (SUBREDDIT_TOKEN_MARK); only words have positions.
 * - posts_sampled: the posts' rows but for their text, positions and grams (SAMPLED_COLUMNS), ordered by their
 *   sample hash (`h`, SAMPLE_HASH) then id, so that the conversation's sample of a period (the posts whose hash is
 *   below a cut) is one stretch at the table's start rather than rows spread over every granule of `posts`.
 * - texts: the lower-cased text (LOWERED_TEXT) of each post with grams, ordered by the scripts of its grams, then its
 *   sample hash's stretch (textStretch), then time: a substring term's recheck reads the texts of the range's posts of
 *   the term's scripts, not every text of the range, and the conversation's sample (the posts whose hash is below a
 *   cut) only the stretches below that cut rather than a few rows in every granule of the range.
 * - lexicon: each word's text and hash, sorted by text, so a prefix (`barist*`) finds its tokens; filled from the
 *   posts' own words (rows.ts, fillLexicon). It only grows (a word no post has any more finds no post); a rebuild
 *   starts it afresh.
 * - profiles: the authors (followers for reach; handle, its lowerUTF8 (`lhandle`, computed here) and country for
 *   author: and country:; verified as listed).
 * - layout: the version these tables were made by.
 */
/**
 * post_tags: the workspaces' tags each post carries (server/tags/carried.ts), a row per (tag, post), ordered by tag: a
 * refinement by tags reads their slices. Fed with the posts' rows (the outbox's tag_post_ids: applier.ts) and copied
 * whole by a rebuild. A tag's id is unique across workspaces; a request names only its own workspace's.
 */
export const postTagsTable = (db: string) =>
  `CREATE TABLE IF NOT EXISTS ${db}.post_tags (tag UUID, post UInt64)
    ENGINE = MergeTree ORDER BY (tag, post) SETTINGS ${DURABLE}`;

function tables(db: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.posts (
      id UInt64, ts Int64, q UInt32 DEFAULT intDiv(ts, ${QUARTER_MS}), author_id UInt64,
      platform LowCardinality(String), lang LowCardinality(String), kind LowCardinality(String),
      media LowCardinality(String), likes UInt32, comments UInt32, shares UInt32, engagement UInt32,
      views Nullable(UInt64), sentiment Float32, label Int8,
      hashtags Array(String), mentions Array(String), domains Array(String), ${SUBREDDIT_COLUMN},
      tags Array(String) ALIAS ${TAGS_SQL},
      words Array(String) EPHEMERAL ${POST_WORDS},
      occurrences Array(Tuple(UInt64, UInt32)) EPHEMERAL
        arraySort(arrayZip(arrayMap(w -> sipHash64(w), words), arrayEnumerate(words))),
      runs Array(Array(Tuple(UInt64, UInt32))) EPHEMERAL
        arraySplit((o, i) -> o.1 != occurrences[i].1, occurrences, arrayMap(i -> i - 1, arrayEnumerate(occurrences))),
      ptoks Array(UInt64) DEFAULT arrayMap(r -> r[1].1, runs),
      pos Array(Array(UInt32)) DEFAULT arrayMap(r -> arrayMap(o -> o.2, r), runs),
      toks Array(UInt64) DEFAULT arrayDistinct(arrayMap(w -> sipHash64(w), ${CONVERSATION_WORDS})),
      grams Array(String) EPHEMERAL ${postGramsSql(LOWERED_TEXT)},
      gtoks Array(UInt64) DEFAULT arrayDistinct(arrayMap(g -> sipHash64('g', g), grams)),
      scripts UInt8 DEFAULT ${scriptsSql('grams')},
      text String CODEC(ZSTD(3)),
      INDEX ts_mm ts TYPE minmax GRANULARITY 1
    ) ENGINE = MergeTree ORDER BY id SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.tok (tok UInt64, ts Int64, post UInt64, pos Array(UInt32) CODEC(ZSTD(1)),
      ${TOKEN_POST_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')})
      ENGINE = MergeTree ORDER BY (tok, ts, post) SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.posts_sampled (h UInt16,
      ${SAMPLED_COLUMN_TYPES.map(([name, type]) => `${name} ${type}`).join(', ')}
    ) ENGINE = MergeTree ORDER BY (h, id) SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.texts (scripts UInt8, h UInt16 DEFAULT ${SAMPLE_HASH},
      hb UInt8 DEFAULT ${TEXT_STRETCH_SQL}, ts Int64, id UInt64, ltext String CODEC(ZSTD(3)))
      ENGINE = MergeTree ORDER BY (scripts, hb, ts, id) SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.lexicon (word String, tok UInt64 DEFAULT sipHash64(word))
      ENGINE = ReplacingMergeTree ORDER BY word SETTINGS ${DURABLE}`,
    `CREATE TABLE IF NOT EXISTS ${db}.profiles (
      id UInt64, platform LowCardinality(String), handle String, lhandle String MATERIALIZED lowerUTF8(handle),
      followers UInt64,
      country LowCardinality(String), verified Bool
    ) ENGINE = MergeTree ORDER BY id SETTINGS ${DURABLE}`,
    postTagsTable(db),
    `CREATE TABLE IF NOT EXISTS ${db}.layout (version UInt32, made_at DateTime64(3) DEFAULT now64(3))
      ENGINE = MergeTree ORDER BY tuple() SETTINGS ${DURABLE}`,
  ];
}

/**
 * The oldest ClickHouse the statements are known to run on: the release `chdb` 3.4 embeds, which the tests run. A server
 * (ANALYTICS_URL) of an older release would refuse settings and functions it lacks one dashboard at a time.
 */
const MIN_SERVER_VERSION = '26.7';

/** Whether ClickHouse's `version()` (e.g. 26.7.1.1) is at least MIN_SERVER_VERSION; false when it cannot be read. */
export function supportedVersion(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  const [minMajor, minMinor] = MIN_SERVER_VERSION.split('.').map(Number) as [number, number];
  if (!Number.isInteger(major) || !Number.isInteger(minor)) return false;
  return major! > minMajor || (major === minMajor && minor! >= minMinor);
}

/** Refuses a store whose engine is older than MIN_SERVER_VERSION, saying which it is. */
export async function checkServerVersion(store: AnalyticsStore): Promise<void> {
  const [row] = await store.query<{ version: string }>('SELECT version() AS version');
  const version = row?.version ?? 'unknown';
  if (!supportedVersion(version))
    throw new Error(
      `${store.describe()} runs ClickHouse ${version}; the analytics store needs ${MIN_SERVER_VERSION} or later`,
    );
}

export type LayoutState =
  /** The tables were missing and are made now (empty). */
  | { state: 'created'; version: number }
  /** The store is of this code's layout. */
  | { state: 'current'; version: number }
  /** The store was made by another layout version (older: rebuild it; newer: this code is older than the store). */
  | { state: 'older' | 'newer'; version: number };

/** Whether the store has table `name` in database `db`. */
export async function hasTable(store: AnalyticsStore, db: string, name: string): Promise<boolean> {
  const [row] = await store.query<{ n: string }>(
    'SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}',
    { db, name },
  );
  return Number(row?.n) > 0;
}

/** The layout version of the store in `db`, or null when it has none (a missing or unfinished store). */
export async function layoutVersion(store: AnalyticsStore, db = STORE_DATABASE): Promise<number | null> {
  checkName(db);
  if (!(await hasTable(store, db, 'layout'))) return null;
  const [row] = await store.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${db}.layout`,
  );
  return row?.version ?? null;
}

/**
 * Why the store in `db` cannot be fed and read as it is (it is rebuilt then), or null when its layout is this code's
 * and whole: none yet, another version's, a table of it gone (a server's table dropped, a part of its files lost), or a
 * part of it set aside as broken when it was opened (brokenParts).
 */
export async function layoutFault(store: AnalyticsStore, db = STORE_DATABASE): Promise<string | null> {
  const version = await layoutVersion(store, db);
  if (version === null) return 'it has no layout yet';
  if (version !== LAYOUT_VERSION) return `its layout is ${version}, this server's ${LAYOUT_VERSION}`;
  const missing = await missingTables(store, db);
  if (missing.length > 0)
    return missing.length === 1
      ? `its table ${missing[0]} is missing`
      : `its tables ${missing.join(', ')} are missing`;
  const broken = await brokenParts(store, db);
  if (broken.length === 0) return null;
  return `ClickHouse set aside ${broken.length === 1 ? 'a part' : `${broken.length} parts`} of it as broken (${broken.slice(0, 3).join(', ')})`;
}

/**
 * The parts of `db`'s tables that ClickHouse detached as broken (`table/name`): a part whose files fail their checks
 * when the store is opened (garbled, cut short) is moved to its table's `detached/` and the table opens without its
 * rows, answering short with no error. A part a person detached has no reason and is not counted.
 */
async function brokenParts(store: AnalyticsStore, db = STORE_DATABASE): Promise<string[]> {
  const rows = await store.query<{ table: string; name: string }>(
    `SELECT table, name FROM system.detached_parts WHERE database = {db:String} AND reason LIKE '%broken%'
      ORDER BY table, name`,
    { db },
  );
  return rows.map((row) => `${row.table}/${row.name}`);
}

/** The tables of the layout that `db` lacks (none for a whole store). */
export async function missingTables(store: AnalyticsStore, db = STORE_DATABASE): Promise<string[]> {
  checkName(db);
  const names = tables(db).map((statement) => /^CREATE TABLE IF NOT EXISTS \w+\.(\w+)/.exec(statement)![1]!);
  const held = new Set(
    (
      await store.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = {db:String}`, {
        db,
      })
    ).map((row) => row.name),
  );
  return names.filter((name) => !held.has(name));
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
