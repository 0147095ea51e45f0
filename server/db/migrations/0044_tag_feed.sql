-- Tags reach the analytics store (issue 55, item 3; docs/tags.md): the posts whose tags a write of post_tags changed
-- are named in the corpus's outbox, in the writer's transaction, as a batch of their own (tag_post_ids): the store's
-- applier reads the tags those posts carry now and puts them in place of what it held. The corpus version rises with
-- it, so an answer cached before the change is not served after it.
ALTER TABLE "analytics_outbox" ADD COLUMN "tag_post_ids" bigint[] DEFAULT '{}'::bigint[] NOT NULL;--> statement-breakpoint
CREATE INDEX "post_tags_post_idx" ON "post_tags" USING btree ("post_id");--> statement-breakpoint
-- The posts `changed` carry other tags now: the corpus version rises, and, while a store consumes the outbox, a batch
-- names them. Under the corpus lock, as every writer of the outbox (seq in commit order); the change path's mark is
-- set for the outbox and corpus_state only, and put back as it was.
CREATE FUNCTION "corpus_tags_changed"(changed bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  mark text := current_setting('murmur.corpus_writer', true);
BEGIN
  IF cardinality(changed) = 0 THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
  PERFORM set_config('murmur.corpus_writer', 'on', true);
  PERFORM corpus_touch();
  IF EXISTS (SELECT FROM analytics_consumer) THEN
    INSERT INTO analytics_outbox (corpus_version, post_ids, profile_ids, tag_post_ids)
    SELECT s.version, '{}', '{}', ARRAY(SELECT DISTINCT unnest(changed) ORDER BY 1) FROM corpus_state s;
    PERFORM pg_notify('murmur_analytics_outbox', '');
  END IF;
  PERFORM set_config('murmur.corpus_writer', coalesce(mark, ''), true);
END $$;--> statement-breakpoint
-- Every statement that writes post_tags (a person's tagging, a rule's batch, and the cascades of a rule, tag,
-- category or workspace deleted) names the posts it touched.
CREATE FUNCTION "post_tags_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM corpus_tags_changed(ARRAY(SELECT DISTINCT post_id FROM old_rows));
  ELSE
    PERFORM corpus_tags_changed(ARRAY(SELECT DISTINCT post_id FROM new_rows));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "post_tags_inserted" AFTER INSERT ON "post_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_changed();--> statement-breakpoint
CREATE TRIGGER "post_tags_updated" AFTER UPDATE ON "post_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_changed();--> statement-breakpoint
CREATE TRIGGER "post_tags_deleted" AFTER DELETE ON "post_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_changed();--> statement-breakpoint
-- Emptying the corpus empties the tags of its posts too: the posts' ids start again at 1, and a new post must not
-- carry an old one's tags (the store's are emptied by the reset batch).
CREATE OR REPLACE FUNCTION "corpus_truncate"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  TRUNCATE posts, post_keys, profiles CONTINUE IDENTITY CASCADE;
  TRUNCATE post_tags;
  PERFORM corpus_sequences_restart();
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', '{}', true);
END $$;--> statement-breakpoint
-- Tags set before this migration: named once, so that a store of a layout before 13 gets them.
SELECT corpus_tags_changed(ARRAY(SELECT DISTINCT post_id FROM post_tags));
