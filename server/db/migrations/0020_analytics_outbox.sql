-- The change feed of the columnar analytics store (docs/analytics-engine.md, "Fed by the change path, exactly once";
-- docs/corpus-storage.md, "The analytics outbox"). While a store is registered in analytics_consumer, every writer
-- of the corpus appends one row per batch to analytics_outbox in its own transaction: the corpus version the batch
-- made and the ids of the posts and profiles it removed, added or changed. The row commits or rolls back with the
-- batch, so the store's applier never misses a committed change nor sees one that was not committed. With no
-- consumer nothing is written: the outbox never grows without a reader.
--
-- seq order is commit order: every writer takes the corpus lock first (corpus_changes_begin(): a transaction-level
-- advisory lock held until its commit or rollback; the generator holds it for its whole run) and draws its seq under
-- it, and PostgreSQL makes a commit visible before it releases the transaction's locks. So the next writer draws a
-- larger seq only after the previous writer's rows are visible: a reader that has seen seq n never later sees a
-- smaller one appear (a rolled-back writer leaves a gap, never a late row).

CREATE TABLE "analytics_consumer" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"applied_seq" bigint DEFAULT 0 NOT NULL,
	"registered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "analytics_consumer_one_row" CHECK ("analytics_consumer"."id"),
	CONSTRAINT "analytics_consumer_seq" CHECK ("analytics_consumer"."applied_seq" >= 0)
);
--> statement-breakpoint
CREATE TABLE "analytics_outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"corpus_version" bigint NOT NULL,
	"post_ids" bigint[] NOT NULL,
	"profile_ids" bigint[] NOT NULL,
	"reset" boolean DEFAULT false NOT NULL,
	"written_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
-- Appends the batch's row (ids sorted, without repeats) with the corpus version it made: called after corpus_touch().
-- emptied: the batch emptied the corpus first (corpus_truncate), so the store drops all it holds.
CREATE FUNCTION "analytics_outbox_append"(changed_posts bigint[], changed_profiles bigint[],
  emptied boolean DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT emptied AND cardinality(changed_posts) = 0 AND cardinality(changed_profiles) = 0 THEN
    RETURN;
  END IF;
  -- Every caller holds it already (taking it again costs nothing): seq is drawn under the corpus lock.
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
  IF NOT EXISTS (SELECT FROM analytics_consumer) THEN
    RETURN;
  END IF;
  INSERT INTO analytics_outbox (corpus_version, post_ids, profile_ids, reset)
  SELECT s.version, ARRAY(SELECT DISTINCT unnest(changed_posts) ORDER BY 1),
    ARRAY(SELECT DISTINCT unnest(changed_profiles) ORDER BY 1), emptied
  FROM corpus_state s;
END $$;--> statement-breakpoint
-- The posts a batch removed, added or changed.
CREATE OR REPLACE FUNCTION "corpus_changes_apply"(write_posts boolean DEFAULT true) RETURNS TABLE (added bigint, removed bigint)
  LANGUAGE plpgsql SET work_mem = '64MB' AS $$
DECLARE
  n_added bigint;
  n_removed bigint;
  statement text;
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
  -- The rollups and the per-author rows, with the statements of migrations 0007 and 0009/0010.
  IF n_removed > 0 THEN
    FOR statement IN SELECT s.statement FROM post_rollups_sql('corpus_removed', -1) s WHERE NOT s.cleanup LOOP
      EXECUTE statement;
    END LOOP;
  END IF;
  IF n_added > 0 THEN
    FOR statement IN SELECT s.statement FROM post_rollups_sql('corpus_added', 1) s LOOP
      EXECUTE statement;
    END LOOP;
  END IF;
  IF n_removed > 0 THEN
    FOR statement IN SELECT s.statement FROM post_rollups_sql('corpus_removed', -1) s WHERE s.cleanup LOOP
      EXECUTE statement;
    END LOOP;
  END IF;
  FOR statement IN SELECT author_post_times_sql(CASE WHEN n_added > 0 THEN 'corpus_added' END,
      CASE WHEN n_removed > 0 THEN 'corpus_removed' END) LOOP
    EXECUTE statement;
  END LOOP;
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append(ARRAY(SELECT id FROM corpus_removed UNION SELECT id FROM corpus_added), '{}');
  TRUNCATE corpus_added, corpus_removed;
  RETURN QUERY SELECT n_added, n_removed;
END $$;--> statement-breakpoint
-- Its callers pass every profile they updated (followers or not): the applier re-reads them all.
CREATE OR REPLACE FUNCTION "corpus_followers_changed"(ids bigint[], before integer[], after integer[]) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  CREATE TEMP TABLE corpus_followers ON COMMIT DROP AS
    SELECT c.id, c.o, c.n FROM unnest(ids, before, after) c(id, o, n) WHERE c.o IS DISTINCT FROM c.n;
  INSERT INTO post_days AS r (posted_at, platform, language, kind, media, posts, likes, comments, shares, views,
    engagement, sentiment, rate, rated)
  SELECT date_trunc('day', p.posted_at, 'UTC'), p.platform, p.language, p.kind, p.media, 0, 0, 0, 0, 0, 0, 0,
    coalesce(sum(p.engagement::float8 / c.n) FILTER (WHERE c.n > 0), 0)
      - coalesce(sum(p.engagement::float8 / c.o) FILTER (WHERE c.o > 0), 0),
    count(*) FILTER (WHERE c.n > 0) - count(*) FILTER (WHERE c.o > 0)
  FROM corpus_followers c JOIN posts p ON p.author_id = c.id
  GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT ON CONSTRAINT post_days_key DO UPDATE SET rate = r.rate + excluded.rate, rated = r.rated + excluded.rated;
  UPDATE author_post_times t SET followers = c.n FROM corpus_followers c WHERE t.author_id = c.id AND t.followers <> c.n;
  DROP TABLE corpus_followers;
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', ids);
END $$;--> statement-breakpoint
-- The profiles taken away (their posts are in the row corpus_delete_posts appended before).
CREATE OR REPLACE FUNCTION "corpus_delete_profiles"(condition text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  PERFORM corpus_changes_begin();
  -- The condition is read once: it may name the posts it is about to take away.
  EXECUTE format('SELECT coalesce(array_agg(id), ''{}'') FROM profiles WHERE %s', condition) INTO ids;
  PERFORM corpus_delete_posts(format('author_id = ANY (%L::bigint[])', ids));
  DELETE FROM profiles WHERE id = ANY (ids);
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', ids);
  RETURN cardinality(ids);
END $$;--> statement-breakpoint
-- The store empties itself when it reaches this row.
CREATE OR REPLACE FUNCTION "corpus_truncate"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  TRUNCATE posts, post_keys, profiles, post_hours, post_days, post_tag_days, author_post_times RESTART IDENTITY
    CASCADE;
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', '{}', true);
END $$;--> statement-breakpoint
-- Profiles inserted by a writer (new profiles have no posts: only the corpus version and the outbox follow them).
CREATE FUNCTION "corpus_profiles_added"(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', ids);
END $$;
