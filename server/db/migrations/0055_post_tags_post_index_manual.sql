-- A rule's row cost a heap row and two index entries: its rule's (post_tags_rule_idx, (rule, post)) and the posts'
-- (post_tags_post_idx), about a third of a batch's write (issue 55, item 4: a rule over 10M posts tags its past
-- matches in 10 s; docs/tags.md). The posts' index now holds the manual rows only. A post's rule rows are found by
-- their rule's index: by the rules named (a workspace's, for its posts' chips), or skipping from rule to rule
-- (PostgreSQL 18's skip scan) for every workspace's (the analytics store's feed, a removed post's rows here).
DROP INDEX "post_tags_post_idx";--> statement-breakpoint
CREATE INDEX "post_tags_post_idx" ON "post_tags" USING btree ("post_id") WHERE "post_tags"."rule_id" IS NULL;--> statement-breakpoint
-- A removed post's rows are deleted by the two indexes: a join on the post alone would now read the whole table.
CREATE OR REPLACE FUNCTION "corpus_changes_apply"(write_posts boolean DEFAULT true) RETURNS TABLE (added bigint, removed bigint)
  LANGUAGE plpgsql AS $$
DECLARE
  n_added bigint;
  n_removed bigint;
  gone bigint[];
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
  -- A post gone takes its tags (every workspace's, set by hand or by rules) with it; a changed one keeps them. Its
  -- manual rows are found by the posts' index, its rules' by theirs, (rule, post), skipping from rule to rule.
  gone := ARRAY(SELECT o.id FROM corpus_removed o WHERE NOT EXISTS (SELECT FROM corpus_added a WHERE a.id = o.id));
  IF cardinality(gone) > 0 THEN
    DELETE FROM post_tags WHERE rule_id IS NULL AND post_id = ANY (gone);
    DELETE FROM post_tags WHERE rule_id IS NOT NULL AND post_id = ANY (gone);
  END IF;
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
END $$;
