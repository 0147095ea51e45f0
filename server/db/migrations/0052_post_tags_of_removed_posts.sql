-- A removed post's tags go with it (docs/tags.md): its rows in post_tags, a person's and the rules', are deleted in the
-- transaction that removes it, by the change path (a post deleted, with its author or alone) and by the retention (a
-- month dropped). Their statement's trigger names the posts to the analytics store's feed (corpus_tags_changed,
-- migration 0044), which deletes the store's rows of them; no figure, count, check or rebuild then meets a tag of a
-- post that is gone, and the feed's read of a round's tags needs no look-up of the posts a row. Until now the rows
-- stayed, read by nothing in PostgreSQL, while the store kept them until the post's tags changed.

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
      shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model, sentiment_rated) OVERRIDING SYSTEM VALUE
    SELECT id, platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments, shares,
      views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model, sentiment_rated FROM corpus_added;
  END IF;
  -- The external keys: a post gone loses its key, a changed one keeps it (and its month), a new one adds it (a key
  -- already taken is a unique violation, never a second post).
  DELETE FROM post_keys k USING corpus_removed o
    WHERE k.platform = o.platform AND k.external_id = o.external_id AND k.id = o.id
      AND NOT EXISTS (SELECT FROM corpus_added a WHERE a.id = o.id);
  -- A post gone takes its tags (every workspace's, set by hand or by rules) with it; a changed one keeps them.
  DELETE FROM post_tags t USING corpus_removed o
    WHERE t.post_id = o.id AND NOT EXISTS (SELECT FROM corpus_added a WHERE a.id = o.id);
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

CREATE OR REPLACE FUNCTION "posts_partitions_drop_before"(cutoff timestamptz) RETURNS SETOF text
  LANGUAGE plpgsql AS $$
DECLARE
  part record;
BEGIN
  PERFORM corpus_changes_begin();
  FOR part IN SELECT * FROM posts_partitions() WHERE until <= cutoff LOOP
    DELETE FROM post_tags t USING post_keys k
      WHERE t.post_id = k.id AND k.posted_at >= part.since AND k.posted_at < part.until;
    DELETE FROM post_keys WHERE posted_at >= part.since AND posted_at < part.until;
    PERFORM posts_partition_drop(part.name);
    PERFORM corpus_touch();
    RETURN NEXT part.name;
  END LOOP;
END $$;--> statement-breakpoint

-- The rows of posts removed before this migration.
DELETE FROM post_tags t WHERE NOT EXISTS (SELECT FROM post_keys k WHERE k.id = t.post_id);
