-- Each author's followers beside their post times, so that potential reach is read from the same row instead of a
-- join with profiles (about a third of the overview's per-author statement at 1M posts). The table is built again
-- rather than altered: the fixed-width columns come first, and the rows are packed without the dead space that the
-- triggers' rewrites leave behind.
ALTER TABLE "author_post_times" RENAME TO "author_post_times_0009";--> statement-breakpoint
ALTER TABLE "author_post_times_0009" RENAME CONSTRAINT "author_post_times_key" TO "author_post_times_0009_key";--> statement-breakpoint
CREATE TABLE "author_post_times" (
	"author_id" bigint NOT NULL,
	"followers" integer DEFAULT 0 NOT NULL,
	"platform" "platform" NOT NULL,
	"sole" boolean DEFAULT false NOT NULL,
	"language" text,
	"posted_at" timestamp with time zone[] NOT NULL,
	"running" bigint[] NOT NULL,
	CONSTRAINT "author_post_times_key" UNIQUE NULLS NOT DISTINCT("author_id","platform","language")
);--> statement-breakpoint
INSERT INTO "author_post_times" (author_id, followers, platform, sole, language, posted_at, running)
  SELECT t.author_id, a.followers, t.platform, t.sole, t.language, t.posted_at, t.running
  FROM "author_post_times_0009" t JOIN profiles a ON a.id = t.author_id
  ORDER BY t.author_id, t.platform, t.language;--> statement-breakpoint
DROP TABLE "author_post_times_0009";--> statement-breakpoint
-- As in migration 0009, with the followers packed beside the times (a post's author is always a profile).
CREATE OR REPLACE FUNCTION "author_post_times_sql"(added text, removed text) RETURNS SETOF text
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
  IF removed IS NOT NULL THEN
    RETURN NEXT format($q$
      DELETE FROM author_post_times t WHERE t.author_id IN (SELECT author_id FROM %I)
        AND cardinality(t.posted_at) = 0$q$, removed);
  END IF;
END $f$;--> statement-breakpoint
-- A profile's followers changed: its rows follow, under the posts writers' lock (migration 0009), so that a writer
-- packing rows from an older snapshot of profiles cannot put the old count back after this one.
CREATE FUNCTION "author_post_times_followers"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT FROM old_rows o JOIN new_rows n ON n.id = o.id AND n.followers <> o.followers) THEN
    PERFORM pg_advisory_xact_lock(hashtext('murmur:author_post_times'));
    UPDATE author_post_times t SET followers = n.followers
      FROM new_rows n WHERE t.author_id = n.id AND t.followers <> n.followers;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "profiles_author_times_followers" AFTER UPDATE ON "profiles" REFERENCING OLD TABLE AS old_rows
  NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION author_post_times_followers();
