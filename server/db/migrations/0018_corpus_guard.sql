-- Writes of the corpus tables outside the change path are refused (docs/corpus-storage.md, "Changing the corpus by
-- hand"). A plain UPDATE, DELETE, INSERT or TRUNCATE of posts, post_keys, profiles, the rollups or author_post_times
-- changes that table and nothing else: the rollups, the per-author rows, the external keys and the corpus version
-- (so the answer cache) silently stay behind, and a key left behind makes the importer refuse its post for good.
--
-- corpus_changes_begin(), which every writer of the corpus calls first (the importer, the generator, the collection
-- jobs, retention, the corpus_* functions), now marks its transaction (murmur.corpus_writer = 'on', transaction-local,
-- so the mark goes with the commit or rollback). A statement trigger on each corpus table raises unless that mark is
-- there: once per statement, nothing per row, so bulk writes cost what they did. A statement trigger on a partitioned
-- table fires only for statements naming that table, so each month's partition has one of its own, and
-- posts_partition_ensure gives it to the months it makes. An operator who must bypass the guard on purpose sets the
-- mark for a session (SET murmur.corpus_writer = 'on') and runs `npm run corpus:check -- --repair` afterwards.

CREATE FUNCTION "corpus_write_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('murmur.corpus_writer', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION '% of % outside the corpus''s change path', TG_OP, TG_TABLE_NAME
      USING HINT = 'Write the corpus with corpus_update_posts(), corpus_delete_posts(), corpus_update_profiles(), '
        'corpus_delete_profiles(), corpus_truncate() or corpus_changes_begin() … corpus_changes_apply() (see '
        'docs/corpus-storage.md); after a deliberate bypass, run npm run corpus:check -- --repair.';
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "posts" FOR EACH STATEMENT
  EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "post_keys" FOR EACH STATEMENT
  EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "profiles" FOR EACH STATEMENT
  EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "post_hours" FOR EACH STATEMENT
  EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "post_days" FOR EACH STATEMENT
  EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "post_tag_days" FOR EACH STATEMENT
  EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "author_post_times"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
-- The months that exist (any partition of posts, whatever its name).
DO $$
DECLARE
  part regclass;
BEGIN
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'public.posts'::regclass LOOP
    EXECUTE format('CREATE TRIGGER corpus_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s '
      'FOR EACH STATEMENT EXECUTE FUNCTION corpus_write_guard()', part);
  END LOOP;
END $$;--> statement-breakpoint

-- The mark, set by the function every writer calls first.
CREATE OR REPLACE FUNCTION "corpus_changes_begin"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
  PERFORM set_config('murmur.corpus_writer', 'on', true);
  IF to_regclass('pg_temp.corpus_added') IS NULL THEN
    CREATE TEMP TABLE corpus_added (LIKE public.posts INCLUDING DEFAULTS INCLUDING GENERATED) ON COMMIT DROP;
    ALTER TABLE corpus_added DROP COLUMN search;
    ALTER TABLE corpus_added ALTER COLUMN id SET DEFAULT nextval('public.posts_id_seq');
    CREATE TEMP TABLE corpus_removed ON COMMIT DROP AS
      SELECT id, platform, external_id, author_id, language, posted_at, kind, media, likes, comments, shares, views,
        hashtags, mentions, domains, sentiment, sentiment_label, engagement
      FROM public.posts WITH NO DATA;
  END IF;
END $$;--> statement-breakpoint

-- A month made later is guarded as the others.
CREATE OR REPLACE FUNCTION "posts_partition_ensure"(instant timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  month timestamptz := date_trunc('month', instant, 'UTC');
  name text := 'posts_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
  IF to_regclass(format('public.%I', name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE public.%I PARTITION OF posts FOR VALUES FROM (%L) TO (%L)', name, month,
    date_add(month, interval '1 month', 'UTC'));
  EXECUTE format('CREATE TRIGGER corpus_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON public.%I '
    'FOR EACH STATEMENT EXECUTE FUNCTION corpus_write_guard()', name);
  RETURN true;
END $$;
