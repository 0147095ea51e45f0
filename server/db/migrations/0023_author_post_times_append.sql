-- Per-author rows appended rather than repacked (docs/analytics-engine.md, "Ingest"). Every batch repacked each
-- touched author's rows whole (unnest, sort and aggregate every element): 34 µs a post of the change path at 200,000
-- posts with batches of 5,000, 62 with 1,000, and growing with the authors' posts. Most batches only add posts later
-- than everything their authors had (collectors bring new posts; imports and the generator mostly go forward in
-- time), and for those the rows' arrays are just extended: the times as they are, the running sums from the row's
-- last. An author is appended when the batch removes none of its posts and each of its (platform, language) rows it
-- adds to exists and ends before the batch's first post there (strictly: a post at the same instant would be ordered
-- by engagement among the stored ones); its rows keep `sole` (no row is added) and their followers (kept by
-- corpus_followers_changed). Every other author is repacked as before. The repack runs first: the authors it packs
-- end at or after their added posts, so they never qualify for the append after it, and the authors appended are
-- untouched by it. Both give the same arrays (the elements ordered by time, then engagement).
CREATE OR REPLACE FUNCTION "author_post_times_sql"(added text, removed text) RETURNS SETOF text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
DECLARE
  -- The authors of `added` appended to (none without `added`): a temporary table for the batch's statements.
  appended text := CASE WHEN added IS NOT NULL THEN
    'SELECT author_id FROM author_post_times_appended' ELSE 'SELECT NULL::bigint WHERE false' END;
  changed text := format('SELECT author_id, platform, language FROM (%s) c0 WHERE author_id NOT IN (%s)',
    concat_ws(' UNION ALL ',
      CASE WHEN added IS NOT NULL THEN format('SELECT author_id, platform, language FROM %I', added) END,
      CASE WHEN removed IS NOT NULL THEN format('SELECT author_id, platform, language FROM %I', removed) END),
    appended);
  elements text := $q$SELECT t.author_id, t.platform, t.language, e.posted_at, e.engagement
      FROM author_post_times t CROSS JOIN LATERAL author_post_times_elements(t.posted_at, t.running) e
      WHERE t.author_id IN (SELECT author_id FROM authors)$q$;
BEGIN
  IF added IS NOT NULL THEN
    -- The lateral probes the key's index per (author, platform) and tests the language there: a join on
    -- `language IS NOT DISTINCT FROM` once made the planner loop over every row per key (migration 0009).
    RETURN NEXT format($q$
      CREATE TEMP TABLE author_post_times_appended ON COMMIT DROP AS
      SELECT g.author_id FROM (
        SELECT author_id, platform, language, min(posted_at) AS first FROM %1$I GROUP BY 1, 2, 3) g
      LEFT JOIN LATERAL (
        SELECT t.posted_at[cardinality(t.posted_at)] AS last FROM author_post_times t
        WHERE t.author_id = g.author_id AND t.platform = g.platform
          AND t.language IS NOT DISTINCT FROM g.language) t ON true
      WHERE %2$s
      GROUP BY g.author_id
      HAVING bool_and(coalesce(t.last < g.first, false))$q$,
      added,
      CASE WHEN removed IS NULL THEN 'true'
        ELSE format('NOT EXISTS (SELECT FROM %I r WHERE r.author_id = g.author_id)', removed) END);
  END IF;
  IF removed IS NOT NULL THEN
    elements := format('(%s) EXCEPT ALL SELECT author_id, platform, language, posted_at, engagement FROM %I',
      elements, removed);
  END IF;
  IF added IS NOT NULL THEN
    elements := format('%s UNION ALL SELECT author_id, platform, language, posted_at, engagement FROM %I
      WHERE author_id IN (SELECT author_id FROM authors)', elements, added);
  END IF;
  RETURN NEXT format($q$
    WITH authors AS (SELECT DISTINCT author_id FROM (%1$s) c),
    packed AS (
      SELECT s.author_id, s.platform, s.language,
        coalesce(array_agg(s.posted_at ORDER BY s.i) FILTER (WHERE s.posted_at IS NOT NULL), '{}') AS posted_at,
        '{0}'::bigint[] || coalesce(array_agg(s.r ORDER BY s.i) FILTER (WHERE s.posted_at IS NOT NULL), '{}')
          AS running,
        sum((count(s.posted_at) > 0)::int) OVER (PARTITION BY s.author_id) = 1 AS sole
      FROM (SELECT e.author_id, e.platform, e.language, e.posted_at, row_number() OVER w AS i,
          sum(e.engagement) OVER (w ROWS UNBOUNDED PRECEDING) AS r
        FROM (%2$s UNION ALL SELECT DISTINCT author_id, platform, language, NULL::timestamptz, 0 FROM (%1$s) c) e
        WINDOW w AS (PARTITION BY e.author_id, e.platform, e.language ORDER BY e.posted_at, e.engagement)) s
      GROUP BY 1, 2, 3)
    INSERT INTO author_post_times AS r (author_id, followers, platform, sole, language, posted_at, running)
    SELECT k.author_id, a.followers, k.platform, k.sole, k.language, k.posted_at, k.running
    FROM packed k JOIN profiles a ON a.id = k.author_id
    ON CONFLICT ON CONSTRAINT author_post_times_key DO UPDATE
      SET followers = excluded.followers, posted_at = excluded.posted_at, running = excluded.running,
        sole = excluded.sole$q$, changed, elements);
  IF added IS NOT NULL THEN
    RETURN NEXT format($q$
      UPDATE author_post_times t SET posted_at = t.posted_at || n.posted_at,
        running = t.running || ARRAY(
          SELECT t.running[cardinality(t.running)] + (sum(u.e) OVER (ORDER BY u.o ROWS UNBOUNDED PRECEDING))::bigint
          FROM unnest(n.engagement) WITH ORDINALITY AS u(e, o) ORDER BY u.o)
      FROM (
        SELECT a.author_id, a.platform, a.language,
          array_agg(a.posted_at ORDER BY a.posted_at, a.engagement) AS posted_at,
          array_agg(a.engagement::bigint ORDER BY a.posted_at, a.engagement) AS engagement
        FROM %1$I a WHERE a.author_id IN (SELECT author_id FROM author_post_times_appended)
        GROUP BY 1, 2, 3) n
      WHERE t.author_id = n.author_id AND t.platform = n.platform AND t.language IS NOT DISTINCT FROM n.language$q$,
      added);
    RETURN NEXT 'DROP TABLE author_post_times_appended';
  END IF;
  IF removed IS NOT NULL THEN
    RETURN NEXT format($q$
      DELETE FROM author_post_times t WHERE t.author_id IN (SELECT author_id FROM %I)
        AND cardinality(t.posted_at) = 0$q$, removed);
  END IF;
END $f$;
