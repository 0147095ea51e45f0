-- A statement that changes the tags of many posts (a large rule or a workspace deleted: 1.33 million rows at 10M
-- posts) named them all in one outbox batch, which the analytics store's applier took as one round: at 10M, 7 s of
-- writing to the store, while which no dashboard's read counts (its figures would be of no one version) and each read
-- gave up after three tries (503). Its posts are now named in batches of 50,000 (a rule's past matches are written in
-- transactions of that size: server/social/insights/rule-past.ts), each at a corpus version of its own, so rounds
-- stay their usual size and reads take turns with them (server/analytics/read-gate.ts). The versions between are never
-- PostgreSQL's once the transaction commits: a store at one of them is behind, and its answers are not cached.
CREATE OR REPLACE FUNCTION "corpus_tags_changed"(changed bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  mark text := current_setting('murmur.corpus_writer', true);
  ids bigint[];
  n integer;
  chunk constant integer := 50000;
BEGIN
  IF cardinality(changed) = 0 THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
  PERFORM set_config('murmur.corpus_writer', 'on', true);
  IF EXISTS (SELECT FROM analytics_consumer) THEN
    ids := ARRAY(SELECT DISTINCT unnest(changed) ORDER BY 1);
    n := cardinality(ids);
    FOR i IN 0 .. (n - 1) / chunk LOOP
      PERFORM corpus_touch();
      INSERT INTO analytics_outbox (corpus_version, post_ids, profile_ids, tag_post_ids)
      SELECT s.version, '{}', '{}', ids[i * chunk + 1 : least((i + 1) * chunk, n)] FROM corpus_state s;
    END LOOP;
    PERFORM pg_notify('murmur_analytics_outbox', '');
  ELSE
    PERFORM corpus_touch();
  END IF;
  PERFORM set_config('murmur.corpus_writer', coalesce(mark, ''), true);
END $$;
