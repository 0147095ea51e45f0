-- PostgreSQL keeps the record; the analytics store (server/analytics) answers every figure. Nothing reads the rollups
-- (post_hours, post_days, post_tag_days, 0007), the per-author rows (author_post_times, 0009/0010/0023) or the posts'
-- analytic indexes any more, and every write of the corpus paid for them (about 416 µs a post of an import). The
-- change path's functions stop writing them first (plpgsql bodies are not tracked as dependencies: a dropped table
-- would only fail their next call), then the indexes, the functions that wrote or indexed them, and the tables go.

-- The posts a batch removed, added or changed: the posts themselves, their keys, the corpus version and the outbox.
CREATE OR REPLACE FUNCTION "corpus_changes_apply"(write_posts boolean DEFAULT true) RETURNS TABLE (added bigint, removed bigint)
  LANGUAGE plpgsql AS $$
DECLARE
  n_added bigint;
  n_removed bigint;
BEGIN
  PERFORM corpus_changes_begin();
  SELECT count(*) INTO n_added FROM corpus_added;
  SELECT count(*) INTO n_removed FROM corpus_removed;
  IF n_added = 0 AND n_removed = 0 THEN
    RETURN QUERY SELECT 0::bigint, 0::bigint;
    RETURN;
  END IF;
  PERFORM posts_partition_ensure(m) FROM (SELECT DISTINCT date_trunc('month', posted_at, 'UTC') AS m
    FROM corpus_added) x;
  IF write_posts THEN
    -- A changed post is deleted and inserted again with its id: a new posted_at may belong to another month.
    DELETE FROM posts p USING corpus_removed o WHERE p.id = o.id AND p.posted_at = o.posted_at;
    INSERT INTO posts (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments,
      shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label) OVERRIDING SYSTEM VALUE
    SELECT id, platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments, shares,
      views, url, hashtags, mentions, domains, sentiment, sentiment_label FROM corpus_added;
  END IF;
  -- The external keys: a post gone loses its key, a changed one keeps it (and its month), a new one adds it (a key
  -- already taken is a unique violation, never a second post).
  DELETE FROM post_keys k USING corpus_removed o
    WHERE k.platform = o.platform AND k.external_id = o.external_id AND k.id = o.id
      AND NOT EXISTS (SELECT FROM corpus_added a WHERE a.id = o.id);
  UPDATE post_keys k SET posted_at = a.posted_at, platform = a.platform, external_id = a.external_id
    FROM corpus_removed o JOIN corpus_added a ON a.id = o.id
    WHERE k.platform = o.platform AND k.external_id = o.external_id AND k.id = o.id
      AND (k.posted_at, k.platform, k.external_id) IS DISTINCT FROM (a.posted_at, a.platform, a.external_id);
  INSERT INTO post_keys (platform, external_id, id, posted_at)
    SELECT a.platform, a.external_id, a.id, a.posted_at FROM corpus_added a
    WHERE NOT EXISTS (SELECT FROM corpus_removed o WHERE o.id = a.id);
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append(ARRAY(SELECT id FROM corpus_removed UNION SELECT id FROM corpus_added), '{}');
  TRUNCATE corpus_added, corpus_removed;
  RETURN QUERY SELECT n_added, n_removed;
END $$;--> statement-breakpoint

-- Profiles updated (followers or not; the counts before and after are no longer needed here, the signature stays for
-- its callers): the store re-reads them all.
CREATE OR REPLACE FUNCTION "corpus_followers_changed"(ids bigint[], before integer[], after integer[]) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', ids);
END $$;--> statement-breakpoint

-- Empties the corpus: posts (every partition stays, empty), their keys, profiles, and (CASCADE) any table with a
-- foreign key to posts or profiles.
CREATE OR REPLACE FUNCTION "corpus_truncate"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  TRUNCATE posts, post_keys, profiles CONTINUE IDENTITY CASCADE;
  PERFORM corpus_sequences_restart();
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', '{}', true);
END $$;--> statement-breakpoint

-- The sequences of the tables corpus_truncate() empties. Replaced by the owner, it stays the owner's.
CREATE OR REPLACE FUNCTION "corpus_sequences_restart"() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  sequence_name text;
BEGIN
  IF current_setting('murmur.corpus_writer', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION 'corpus_sequences_restart() outside the corpus''s change path';
  END IF;
  FOR sequence_name IN SELECT pg_get_serial_sequence(format('public.%I', t), a.attname)
    FROM unnest(ARRAY['posts', 'post_keys', 'profiles']) t
    JOIN pg_attribute a ON a.attrelid = format('public.%I', t)::regclass AND a.attnum > 0 AND NOT a.attisdropped
  LOOP
    IF sequence_name IS NOT NULL THEN
      EXECUTE format('ALTER SEQUENCE %s RESTART', sequence_name);
    END IF;
  END LOOP;
END $$;--> statement-breakpoint

-- Retention: the months wholly before `cutoff` go, partition by partition: the keys of the month are deleted and the
-- partition is detached and dropped (posts_partition_drop). Returns the partitions dropped.
CREATE OR REPLACE FUNCTION "posts_partitions_drop_before"(cutoff timestamptz) RETURNS SETOF text
  LANGUAGE plpgsql AS $$
DECLARE
  part record;
BEGIN
  PERFORM corpus_changes_begin();
  FOR part IN SELECT * FROM posts_partitions() WHERE until <= cutoff LOOP
    DELETE FROM post_keys WHERE posted_at >= part.since AND posted_at < part.until;
    PERFORM posts_partition_drop(part.name);
    PERFORM corpus_touch();
    RETURN NEXT part.name;
  END LOOP;
END $$;--> statement-breakpoint

-- The posts keep their primary key (id, posted_at), posts_author_posted_idx (a profile's deletion finds its posts by
-- author) and the full-text vector's index, without the sample's levels (the search column and its index go when the
-- store makes its own tokens); post_keys finds a post by (platform, external_id) or by id. What went served only the
-- dashboards' statements PostgreSQL no longer runs: per-author ranges, platform and language ranges, discover's
-- engagement sort, hashtags and mentions, substring terms (the grams; post_text_grams stays for now) and the word
-- sample's levels (post_sample_marks stays while a test holds the store's sample hash to it; it indexes nothing now).
DROP INDEX "posts_posted_authors_idx";--> statement-breakpoint
DROP INDEX "posts_search_sample_idx";--> statement-breakpoint
DROP INDEX "posts_hashtags_idx";--> statement-breakpoint
DROP INDEX "posts_mentions_idx";--> statement-breakpoint
DROP INDEX "posts_text_grams_idx";--> statement-breakpoint
DROP INDEX "posts_platform_language_posted_idx";--> statement-breakpoint
DROP INDEX "posts_engagement_idx";--> statement-breakpoint
CREATE INDEX "posts_search_idx" ON "posts" USING gin ("search");--> statement-breakpoint

DROP FUNCTION "post_rollups_sql"(text, integer);--> statement-breakpoint
DROP FUNCTION "author_post_times_sql"(text, text);--> statement-breakpoint
DROP FUNCTION "author_post_times_elements"(timestamptz[], bigint[]);--> statement-breakpoint

-- Their corpus_guard triggers (0018) go with them.
DROP TABLE "post_hours", "post_days", "post_tag_days", "author_post_times";
