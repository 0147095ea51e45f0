-- The server runs as an application role that is neither the owner of the tables nor a superuser
-- (server/db/app-role.ts): ALTER TABLE … DISABLE TRIGGER and SET session_replication_role, which went around the
-- corpus guard (0018), are refused to it. What it did as the owner that only an owner may do is done by functions of
-- the owner's (SECURITY DEFINER, their search_path fixed): making a month of posts, and dropping one (retention), the
-- latter only on the change path. And the two tables the change path keeps beside the corpus are guarded like it: the
-- outbox the analytics store applies (a row removed by hand is a change the store never sees) and the corpus version
-- (the answer cache's key) take no plain INSERT, UPDATE, DELETE or TRUNCATE; the outbox's consumer claims the path to
-- trim what it applied (server/analytics/outbox.ts).

CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "analytics_outbox"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint
CREATE TRIGGER "corpus_guard" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "corpus_state"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_write_guard();--> statement-breakpoint

-- A month made later is guarded as the others; made by the owner, whose default privileges give it to the application
-- role.
CREATE OR REPLACE FUNCTION "posts_partition_ensure"(instant timestamptz) RETURNS boolean LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  month timestamptz := date_trunc('month', instant, 'UTC');
  name text := 'posts_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
  IF to_regclass(format('public.%I', name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE public.%I PARTITION OF public.posts FOR VALUES FROM (%L) TO (%L)', name, month,
    date_add(month, interval '1 month', 'UTC'));
  EXECUTE format('CREATE TRIGGER corpus_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON public.%I '
    'FOR EACH STATEMENT EXECUTE FUNCTION public.corpus_write_guard()', name);
  RETURN true;
END $$;--> statement-breakpoint

-- Detaches and drops a month of posts: on the change path only (posts_partitions_drop_before), and only a partition
-- of posts.
CREATE FUNCTION "posts_partition_drop"(month_name text) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
  IF current_setting('murmur.corpus_writer', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION 'posts_partition_drop(%) outside the corpus''s change path', month_name
      USING HINT = 'Months are dropped by posts_partitions_drop_before() (docs/corpus-storage.md).';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'public.posts'::regclass AND c.relname = month_name
        AND c.relnamespace = 'public'::regnamespace) THEN
    RAISE EXCEPTION '% is not a month of posts', month_name;
  END IF;
  EXECUTE format('ALTER TABLE public.posts DETACH PARTITION public.%I', month_name);
  EXECUTE format('DROP TABLE public.%I', month_name);
END $$;--> statement-breakpoint

-- Retention drops its months through posts_partition_drop.
CREATE OR REPLACE FUNCTION "posts_partitions_drop_before"(cutoff timestamptz) RETURNS SETOF text
  LANGUAGE plpgsql SET work_mem = '64MB' AS $$
DECLARE
  part record;
  statement text;
BEGIN
  PERFORM corpus_changes_begin();
  FOR part IN SELECT * FROM posts_partitions() WHERE until <= cutoff LOOP
    EXECUTE format($q$INSERT INTO corpus_removed SELECT id, platform, external_id, author_id, language, posted_at,
        kind, media, likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label,
        engagement FROM public.%I$q$, part.name);
    FOR statement IN SELECT author_post_times_sql(NULL, 'corpus_removed') LOOP
      EXECUTE statement;
    END LOOP;
    TRUNCATE corpus_removed;
    DELETE FROM post_hours WHERE posted_at >= part.since AND posted_at < part.until;
    DELETE FROM post_days WHERE posted_at >= part.since AND posted_at < part.until;
    DELETE FROM post_tag_days WHERE posted_at >= part.since AND posted_at < part.until;
    DELETE FROM post_keys WHERE posted_at >= part.since AND posted_at < part.until;
    PERFORM posts_partition_drop(part.name);
    PERFORM corpus_touch();
    RETURN NEXT part.name;
  END LOOP;
END $$;
--> statement-breakpoint

-- corpus_truncate()'s RESTART IDENTITY, which only the sequences' owner may: on the change path only.
CREATE FUNCTION "corpus_sequences_restart"() RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  sequence_name text;
BEGIN
  IF current_setting('murmur.corpus_writer', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION 'corpus_sequences_restart() outside the corpus''s change path';
  END IF;
  FOR sequence_name IN SELECT pg_get_serial_sequence(format('public.%I', t), a.attname)
    FROM unnest(ARRAY['posts', 'post_keys', 'profiles', 'post_hours', 'post_days', 'post_tag_days',
      'author_post_times']) t
    JOIN pg_attribute a ON a.attrelid = format('public.%I', t)::regclass AND a.attnum > 0 AND NOT a.attisdropped
  LOOP
    IF sequence_name IS NOT NULL THEN
      EXECUTE format('ALTER SEQUENCE %s RESTART', sequence_name);
    END IF;
  END LOOP;
END $$;--> statement-breakpoint

CREATE OR REPLACE FUNCTION "corpus_truncate"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  TRUNCATE posts, post_keys, profiles, post_hours, post_days, post_tag_days, author_post_times CONTINUE IDENTITY
    CASCADE;
  PERFORM corpus_sequences_restart();
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', '{}', true);
END $$;
