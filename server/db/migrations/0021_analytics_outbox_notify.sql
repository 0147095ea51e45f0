-- The analytics store's applier hears of a new outbox batch at once instead of on its timer: the writer's
-- transaction notifies murmur_analytics_outbox (delivered at its commit, never for a rollback; PostgreSQL folds the
-- notifications of one transaction into one).
CREATE OR REPLACE FUNCTION "analytics_outbox_append"(changed_posts bigint[], changed_profiles bigint[],
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
  PERFORM pg_notify('murmur_analytics_outbox', '');
END $$;
