CREATE TABLE "author_post_times" (
	"author_id" bigint NOT NULL,
	"platform" "platform" NOT NULL,
	"language" text,
	"posted_at" timestamp with time zone[] NOT NULL,
	"running" bigint[] NOT NULL,
	"sole" boolean DEFAULT false NOT NULL,
	CONSTRAINT "author_post_times_key" UNIQUE NULLS NOT DISTINCT("author_id","platform","language")
);
--> statement-breakpoint
-- Per-author figures (server/social/insights/README.md, "Per-author figures"). A row holds the times of an author's
-- posts in one platform and language, ascending, and the running sum of their engagement after a leading 0. Its
-- posts in [from, to) number hi - lo, where hi = width_bucket(to - 1 µs, posted_at) and lo = width_bucket(from - 1 µs,
-- posted_at) (width_bucket counts the elements at or before its operand), and their engagement is
-- running[hi + 1] - running[lo + 1]. A row's elements are its posts' (time, engagement) pairs, in that order.
CREATE FUNCTION "author_post_times_elements"(times timestamptz[], running bigint[])
  RETURNS TABLE (posted_at timestamptz, engagement integer)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT u.t, (u.hi - u.lo)::integer
    FROM unnest(times, running[2:], running[:cardinality(running) - 1]) u(t, hi, lo) $$;--> statement-breakpoint
-- author_post_times_sql(added, removed) gives the statements that add the posts of the table `added` and take away
-- those of `removed` (posts itself, a trigger's transition tables, or null for none). Every row of the authors they
-- touch is unpacked into its elements, the removed posts are taken away (as a multiset, EXCEPT ALL), the added ones
-- put in, and the rows packed again with `sole` (whether the row is its author's only one); a key left without posts
-- is packed empty, then deleted. The joins are on author_id alone: an estimate for `language IS NOT DISTINCT FROM`
-- once made the planner loop over every row per key (minutes for 50 000 posts). The backfill below and the triggers
-- share these statements.
CREATE FUNCTION "author_post_times_sql"(added text, removed text) RETURNS SETOF text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
DECLARE
  changed text := concat_ws(' UNION ALL ',
    CASE WHEN added IS NOT NULL THEN format('SELECT author_id, platform, language FROM %I', added) END,
    CASE WHEN removed IS NOT NULL THEN format('SELECT author_id, platform, language FROM %I', removed) END);
  elements text := $q$SELECT t.author_id, t.platform, t.language, e.posted_at, e.engagement
      FROM author_post_times t CROSS JOIN LATERAL author_post_times_elements(t.posted_at, t.running) e
      WHERE t.author_id IN (SELECT author_id FROM authors)$q$;
BEGIN
  IF removed IS NOT NULL THEN
    elements := format('(%s) EXCEPT ALL SELECT author_id, platform, language, posted_at, engagement FROM %I',
      elements, removed);
  END IF;
  IF added IS NOT NULL THEN
    elements := format('%s UNION ALL SELECT author_id, platform, language, posted_at, engagement FROM %I',
      elements, added);
  END IF;
  -- One element without a time per key touched, so that a key left without posts is packed too (empty): it sorts
  -- last and adds nothing to the running sum.
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
    INSERT INTO author_post_times AS r (author_id, platform, language, posted_at, running, sole)
    SELECT * FROM packed
    ON CONFLICT ON CONSTRAINT author_post_times_key DO UPDATE
      SET posted_at = excluded.posted_at, running = excluded.running, sole = excluded.sole$q$, changed, elements);
  IF removed IS NOT NULL THEN
    RETURN NEXT format($q$
      DELETE FROM author_post_times t WHERE t.author_id IN (SELECT author_id FROM %I)
        AND cardinality(t.posted_at) = 0$q$, removed);
  END IF;
END $f$;--> statement-breakpoint
-- The rows are rewritten from what the statement's snapshot shows of them, so the writers of posts take turns from
-- here to their commit (a transaction-level advisory lock): in READ COMMITTED each statement of this function sees
-- what the previous holder committed; under REPEATABLE READ a row changed since the snapshot is a serialization
-- failure, never a lost change.
-- Room to sort the elements of the authors touched in memory (a batch of 50 000 posts touches some 700 000).
CREATE FUNCTION "author_post_times_trigger"() RETURNS trigger LANGUAGE plpgsql SET work_mem = '64MB' AS $$
DECLARE
  statement text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('murmur:author_post_times'));
  FOR statement IN SELECT author_post_times_sql(CASE WHEN TG_OP <> 'DELETE' THEN 'new_rows' END,
      CASE WHEN TG_OP <> 'INSERT' THEN 'old_rows' END) LOOP
    EXECUTE statement;
  END LOOP;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "posts_author_times_insert" AFTER INSERT ON "posts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION author_post_times_trigger();--> statement-breakpoint
CREATE TRIGGER "posts_author_times_update" AFTER UPDATE ON "posts" REFERENCING OLD TABLE AS old_rows
  NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION author_post_times_trigger();--> statement-breakpoint
CREATE TRIGGER "posts_author_times_delete" AFTER DELETE ON "posts" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION author_post_times_trigger();--> statement-breakpoint
CREATE FUNCTION "author_post_times_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE author_post_times;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "posts_author_times_truncate" AFTER TRUNCATE ON "posts"
  FOR EACH STATEMENT EXECUTE FUNCTION author_post_times_truncate();--> statement-breakpoint
DO $$
DECLARE
  statement text;
BEGIN
  FOR statement IN SELECT author_post_times_sql('posts', NULL) LOOP
    EXECUTE statement;
  END LOOP;
END $$;
