-- Issue 53 item 4: a post with too little text is "not rated" rather than neutral, and the dashboards count it apart.
-- Whether a post's text gave enough to rate is decided by the scorer that labelled it (sentimentRated() in
-- server/social/corpus/sentiment-explain.ts: no word nor emoji, or fewer than 3 and labelled neutral, is not rated),
-- so it is recorded with the label by the importer, the collectors, the demo generator and the rescan. Null for the
-- posts already stored (adding a column without a default rewrites nothing): counted as rated, as before, until the
-- background rescan (server/social/corpus/rescan.ts), which takes the posts whose rating is null, sets it.
ALTER TABLE "posts" ADD COLUMN "sentiment_rated" boolean;--> statement-breakpoint

-- The posts a batch removed, added or changed: the posts themselves (with their sentiment's version and rating),
-- their keys, the corpus version and the outbox.
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

-- Hand-written changes through the change path. The rows a condition selects are taken as they are (with the version
-- of their sentiment and its rating, which an assignment may set), the assignments are applied to a copy (UPDATE … SET with the
-- posts' column names), and the copy replaces them.
CREATE OR REPLACE FUNCTION "corpus_update_posts"(condition text, assignments text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  EXECUTE format($q$INSERT INTO corpus_removed SELECT id, platform, external_id, author_id, language, posted_at, kind,
      media, likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label, engagement
    FROM posts WHERE %s$q$, condition);
  INSERT INTO corpus_added (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes,
    comments, shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model,
    sentiment_rated)
  SELECT p.id, p.platform, p.external_id, p.author_id, p.text, p.language, p.posted_at, p.kind, p.media, p.likes,
    p.comments, p.shares, p.views, p.url, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label,
    p.sentiment_model, p.sentiment_rated
  FROM posts p JOIN corpus_removed o ON p.id = o.id AND p.posted_at = o.posted_at;
  EXECUTE format('UPDATE corpus_added SET %s', assignments);
  RETURN (SELECT a.removed FROM corpus_changes_apply() a);
END $$;
