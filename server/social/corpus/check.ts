// `npm run corpus:check`: every table derived from the posts (the rollups, the per-author rows and the external keys,
// docs/corpus-storage.md) recounted from the posts and compared both ways, and on request rebuilt from them with the
// change path's own statements. The guard (migration 0018) makes a difference impossible by accident; this finds and
// repairs one left by a deliberate bypass, a restore of some tables only, or a fault.
import type pg from 'pg';

/** The derived tables, in the order they are reported. */
const DERIVED_TABLES = [
  'post_hours',
  'post_days',
  'post_tag_days',
  'author_post_times',
  'post_keys',
] as const;
type DerivedTable = (typeof DERIVED_TABLES)[number];

export interface TableDifference {
  table: DerivedTable;
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

// Each table's rows as stored and as a recount of the posts gives them, sums of floating-point numbers rounded to 9
// places (the stored ones are running sums).
const RECOUNTS: Record<DerivedTable, { stored: string; recount: string }> = {
  post_hours: {
    stored: `SELECT posted_at, platform, language, posts, engagement, positive, neutral, negative,
      round(sentiment::numeric, 9) FROM post_hours`,
    recount: `SELECT date_trunc('hour', posted_at, 'UTC'), platform, language, count(*)::int, sum(engagement)::bigint,
      count(*) FILTER (WHERE sentiment_label = 'positive')::int,
      count(*) FILTER (WHERE sentiment_label = 'neutral')::int,
      count(*) FILTER (WHERE sentiment_label = 'negative')::int, round(sum(sentiment::float8)::numeric, 9)
      FROM posts GROUP BY 1, 2, 3`,
  },
  post_days: {
    stored: `SELECT posted_at, platform, language, kind, media, posts, likes, comments, shares, views, engagement,
      round(sentiment::numeric, 9), round(rate::numeric, 9), rated FROM post_days`,
    recount: `SELECT date_trunc('day', p.posted_at, 'UTC'), p.platform, p.language, p.kind, p.media, count(*)::int,
      sum(p.likes)::bigint, sum(p.comments)::bigint, sum(p.shares)::bigint, coalesce(sum(p.views), 0)::bigint,
      sum(p.engagement)::bigint, round(sum(p.sentiment::float8)::numeric, 9),
      round(coalesce(sum(p.engagement::float8 / a.followers) FILTER (WHERE a.followers > 0), 0)::numeric, 9),
      count(*) FILTER (WHERE a.followers > 0)::int
      FROM posts p LEFT JOIN profiles a ON a.id = p.author_id GROUP BY 1, 2, 3, 4, 5`,
  },
  post_tag_days: {
    stored: `SELECT posted_at, type, tag, platform, language, posts FROM post_tag_days`,
    recount: `SELECT date_trunc('day', p.posted_at, 'UTC'), e.type, e.tag, p.platform, p.language, count(*)::int
      FROM posts p CROSS JOIN LATERAL (SELECT 'hashtag', x FROM unnest(p.hashtags) x
        UNION SELECT 'mention', x FROM unnest(p.mentions) x UNION SELECT 'domain', x FROM unnest(p.domains) x)
        e (type, tag) GROUP BY 1, 2, 3, 4, 5`,
  },
  // Posts with the same time and engagement are interchangeable: the running sums climb through them.
  author_post_times: {
    stored: `SELECT author_id, followers, platform, language, posted_at, running, sole FROM author_post_times`,
    recount: `SELECT author_id, followers, platform, language, array_agg(posted_at ORDER BY posted_at, engagement, r),
        '{0}'::bigint[] || array_agg(r ORDER BY posted_at, engagement, r),
        count(*) OVER (PARTITION BY author_id) = 1
      FROM (SELECT p.author_id, a.followers, p.platform, p.language, p.posted_at, p.engagement,
          sum(p.engagement) OVER (PARTITION BY p.author_id, p.platform, p.language
            ORDER BY p.posted_at, p.engagement ROWS UNBOUNDED PRECEDING) AS r
        FROM posts p JOIN profiles a ON a.id = p.author_id) x
      GROUP BY 1, 2, 3, 4`,
  },
  // A key belongs to the oldest post that has it (the others are reported as duplicates).
  post_keys: {
    stored: `SELECT platform, external_id, id, posted_at FROM post_keys`,
    recount: `SELECT DISTINCT ON (platform, external_id) platform, external_id, id, posted_at FROM posts
      ORDER BY platform, external_id, id`,
  },
};

/** Recounts every derived table from the posts (in one snapshot) and compares it with what is stored, both ways. */
export async function checkCorpus(client: pg.ClientBase): Promise<CorpusCheck> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    await client.query(`SET LOCAL work_mem = '64MB'`);
    const tables: TableDifference[] = [];
    for (const table of DERIVED_TABLES) {
      const { stored, recount } = RECOUNTS[table];
      const { rows } = await client.query<{ rows: string; stored: string; recounted: string }>(
        `WITH s AS (${stored}), r AS (${recount})
         SELECT (SELECT count(*) FROM s) AS rows, (SELECT count(*) FROM (TABLE s EXCEPT ALL TABLE r) x) AS stored,
           (SELECT count(*) FROM (TABLE r EXCEPT ALL TABLE s) x) AS recounted`,
      );
      const row = rows[0]!;
      tables.push({
        table,
        rows: Number(row.rows),
        stored: Number(row.stored),
        recounted: Number(row.recounted),
      });
    }
    const { rows } = await client.query<{ posts: string; duplicates: string[] | null }>(
      `SELECT (SELECT count(*) FROM posts) AS posts,
         (SELECT array_agg(id ORDER BY id) FROM (SELECT id, row_number() OVER (PARTITION BY platform, external_id
           ORDER BY id) AS n FROM posts) d WHERE n > 1) AS duplicates`,
    );
    return { posts: Number(rows[0]!.posts), tables, duplicates: (rows[0]!.duplicates ?? []).map(Number) };
  } finally {
    await client.query('ROLLBACK');
  }
}

export const differs = (table: TableDifference) => table.stored + table.recounted > 0;

/** Posts per step of the rebuild: each step's rows are copied to a temporary table first. */
const STEP_POSTS = 50_000;

/**
 * Rebuilds every derived table from the posts in one transaction of the change path (its lock keeps writers out; a
 * failure leaves everything as it was), with the statements corpus_changes_apply() runs: the rollups month by
 * month, the keys, then the per-author rows by groups of authors. Raises the corpus version: cached answers computed from
 * the tables as they were are invalid. `onProgress` gets the posts done of twice the posts (two passes).
 */
export async function repairCorpus(
  client: pg.ClientBase,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT corpus_changes_begin()');
    await client.query(`SET LOCAL work_mem = '64MB'`);
    const months = await client.query<{ part: string }>(
      `SELECT inhrelid::regclass::text AS part FROM pg_inherits WHERE inhparent = 'public.posts'::regclass ORDER BY 1`,
    );
    const authors = await client.query<{ author_id: string; posts: string }>(
      'SELECT author_id, count(*) AS posts FROM posts GROUP BY 1 ORDER BY 1',
    );
    const total = 2 * authors.rows.reduce((sum, row) => sum + Number(row.posts), 0);
    let done = 0;
    onProgress(done, total);
    await client.query('TRUNCATE post_hours, post_days, post_tag_days, author_post_times, post_keys');
    for (const { part } of months.rows) {
      const copied = await client.query(
        `CREATE TEMP TABLE corpus_rebuild ON COMMIT DROP AS SELECT id, platform, external_id, author_id, language,
           posted_at, kind, media, likes, comments, shares, views, hashtags, mentions, domains, sentiment,
           sentiment_label, engagement FROM ${part}`,
      );
      await runStatements(
        client,
        `SELECT statement FROM post_rollups_sql('corpus_rebuild', 1) WHERE NOT cleanup`,
      );
      await client.query('DROP TABLE corpus_rebuild');
      done += copied.rowCount ?? 0;
      onProgress(done, total);
    }
    // A key belongs to the oldest post that has it.
    await client.query(
      `INSERT INTO post_keys (platform, external_id, id, posted_at)
       SELECT DISTINCT ON (platform, external_id) platform, external_id, id, posted_at FROM posts
       ORDER BY platform, external_id, id`,
    );
    let group: string[] = [];
    let groupPosts = 0;
    const flush = async () => {
      if (group.length === 0) return;
      await client.query(
        `CREATE TEMP TABLE corpus_rebuild ON COMMIT DROP AS SELECT author_id, platform, language, posted_at, engagement
         FROM posts WHERE author_id = ANY ($1::bigint[])`,
        [group],
      );
      await runStatements(client, `SELECT author_post_times_sql('corpus_rebuild', NULL) AS statement`);
      await client.query('DROP TABLE corpus_rebuild');
      done += groupPosts;
      onProgress(done, total);
      group = [];
      groupPosts = 0;
    };
    for (const row of authors.rows) {
      group.push(row.author_id);
      groupPosts += Number(row.posts);
      if (groupPosts >= STEP_POSTS) await flush();
    }
    await flush();
    await client.query('SELECT corpus_touch()');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function runStatements(client: pg.ClientBase, query: string): Promise<void> {
  const { rows } = await client.query<{ statement: string }>(query);
  for (const { statement } of rows) await client.query(statement);
}
