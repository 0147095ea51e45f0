// A recount of the rollups (migration 0007) and author_post_times (0009, 0010) from the posts, for the tests that
// show the corpus's change path keeps them exact.
import { sql } from 'drizzle-orm';
import type { TestServer } from './server-harness';

/**
 * Rows of each rollup that differ from a recount of the posts (either way), sums rounded to 9 places; rows without
 * posts or (author_post_times) whose arrays do not pair up.
 */
export async function rollupDifferences(db: TestServer['db']) {
  const result = await db.execute<{
    hours: number;
    days: number;
    tags: number;
    authors: number;
    empty: number;
  }>(sql`
    WITH h1 AS (SELECT posted_at, platform, language, posts, engagement, positive, neutral, negative,
        round(sentiment::numeric, 9) AS s FROM post_hours),
      h2 AS (SELECT date_trunc('hour', posted_at, 'UTC'), platform, language, count(*)::int, sum(engagement)::bigint,
        count(*) FILTER (WHERE sentiment_label = 'positive')::int,
        count(*) FILTER (WHERE sentiment_label = 'neutral')::int,
        count(*) FILTER (WHERE sentiment_label = 'negative')::int, round(sum(sentiment::float8)::numeric, 9)
        FROM posts GROUP BY 1, 2, 3),
      d1 AS (SELECT posted_at, platform, language, kind, media, posts, likes, comments, shares, views, engagement,
        round(sentiment::numeric, 9), round(rate::numeric, 9), rated FROM post_days),
      d2 AS (SELECT date_trunc('day', p.posted_at, 'UTC'), p.platform, p.language, p.kind, p.media, count(*)::int,
        sum(p.likes)::bigint, sum(p.comments)::bigint, sum(p.shares)::bigint, coalesce(sum(p.views), 0)::bigint,
        sum(p.engagement)::bigint, round(sum(p.sentiment::float8)::numeric, 9),
        round(coalesce(sum(p.engagement::float8 / a.followers) FILTER (WHERE a.followers > 0), 0)::numeric, 9),
        count(*) FILTER (WHERE a.followers > 0)::int
        FROM posts p JOIN profiles a ON a.id = p.author_id GROUP BY 1, 2, 3, 4, 5),
      t1 AS (SELECT posted_at, type, tag, platform, language, posts FROM post_tag_days),
      t2 AS (SELECT date_trunc('day', p.posted_at, 'UTC'), e.type, e.tag, p.platform, p.language, count(*)::int
        FROM posts p CROSS JOIN LATERAL (SELECT DISTINCT 'hashtag', x FROM unnest(p.hashtags) x
          UNION SELECT 'mention', x FROM unnest(p.mentions) x UNION SELECT 'domain', x FROM unnest(p.domains) x)
          e (type, tag) GROUP BY 1, 2, 3, 4, 5),
      a1 AS (SELECT author_id, followers, platform, language, posted_at, running, sole FROM author_post_times),
      -- Posts with the same time and engagement are interchangeable: the running sums climb through them.
      a2 AS (SELECT author_id, followers, platform, language, array_agg(posted_at ORDER BY posted_at, engagement, r),
          '{0}'::bigint[] || array_agg(r ORDER BY posted_at, engagement, r), count(*) OVER (PARTITION BY author_id) = 1
        FROM (SELECT p.author_id, a.followers, p.platform, p.language, p.posted_at, p.engagement,
            sum(p.engagement) OVER (PARTITION BY p.author_id, p.platform, p.language
              ORDER BY p.posted_at, p.engagement ROWS UNBOUNDED PRECEDING) AS r
          FROM posts p JOIN profiles a ON a.id = p.author_id) x
        GROUP BY 1, 2, 3, 4)
    SELECT
      (SELECT count(*) FROM ((TABLE h1 EXCEPT TABLE h2) UNION ALL (TABLE h2 EXCEPT TABLE h1)) x)::int AS hours,
      (SELECT count(*) FROM ((TABLE d1 EXCEPT TABLE d2) UNION ALL (TABLE d2 EXCEPT TABLE d1)) x)::int AS days,
      (SELECT count(*) FROM ((TABLE t1 EXCEPT TABLE t2) UNION ALL (TABLE t2 EXCEPT TABLE t1)) x)::int AS tags,
      (SELECT count(*) FROM ((TABLE a1 EXCEPT TABLE a2) UNION ALL (TABLE a2 EXCEPT TABLE a1)) x)::int AS authors,
      ((SELECT count(*) FROM post_hours WHERE posts <= 0) + (SELECT count(*) FROM post_days WHERE posts <= 0)
        + (SELECT count(*) FROM post_tag_days WHERE posts <= 0)
        + (SELECT count(*) FROM author_post_times WHERE cardinality(posted_at) = 0
          OR cardinality(running) <> cardinality(posted_at) + 1))::int AS empty`);
  return result.rows[0]!;
}
