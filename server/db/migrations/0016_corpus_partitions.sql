-- Posts partitioned by month, and the corpus's change path (issue 20 items 2 and 3; docs/scaling.md §2.2, §3).
--
-- Until now statement triggers with transition tables on posts and profiles kept the rollups (0007), the per-author
-- rows (0009, 0010) and the corpus version (0013) exact: the kind of trigger a distributed PostgreSQL supports least.
-- They go. Every write of posts or profiles goes through the change path instead, in the writer's own transaction:
--
--   corpus_changes_begin()     takes the corpus lock and opens two change tables for this transaction:
--                              corpus_removed (the posts' rows as they were) and corpus_added (as they will be);
--   (the writer fills them)    the importer, the generator and a collection job compute them from their batch;
--   corpus_changes_apply()     makes the months' partitions, deletes the removed rows from posts, inserts the added,
--                              moves the external keys, updates the rollups and the per-author rows from the two
--                              tables with the same statements the triggers ran, raises the corpus version, and
--                              empties the tables for the next batch.
--
-- Hand-written changes have functions of their own that do the same (corpus_update_posts, corpus_delete_posts,
-- corpus_update_profiles, corpus_delete_profiles, corpus_truncate): a plain UPDATE of posts would leave the rollups
-- behind. Their `condition` and `assignments` are SQL text, for operators and tests, never for user input.
--
-- posts becomes PARTITION BY RANGE (posted_at) with one partition per UTC month, `posts_YYYY_MM`. Its keys must contain
-- the partition key, so the primary key is (id, posted_at) and the external key (platform, external_id) moves to
-- post_keys, unique across every partition. Retention drops whole months (posts_partitions_drop_before).

-- 1. The triggers go.
DROP TRIGGER "posts_rollups_insert" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_rollups_update" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_rollups_delete" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_rollups_truncate" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_author_times_insert" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_author_times_update" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_author_times_delete" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_author_times_truncate" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_corpus_version" ON "posts";--> statement-breakpoint
DROP TRIGGER "posts_corpus_version_truncate" ON "posts";--> statement-breakpoint
DROP TRIGGER "profiles_rollups_followers" ON "profiles";--> statement-breakpoint
DROP TRIGGER "profiles_rollups_delete" ON "profiles";--> statement-breakpoint
DROP TRIGGER "profiles_author_times_followers" ON "profiles";--> statement-breakpoint
DROP TRIGGER "profiles_corpus_version" ON "profiles";--> statement-breakpoint
DROP TRIGGER "profiles_corpus_version_truncate" ON "profiles";--> statement-breakpoint
DROP FUNCTION "post_rollups_trigger"(), "post_rollups_truncate"(), "post_rollups_followers"(),
  "post_rollups_profile_deleted"(), "author_post_times_trigger"(), "author_post_times_truncate"(),
  "author_post_times_followers"(), "corpus_version_bump"();--> statement-breakpoint

-- 2. The unpartitioned table steps aside (its rows are copied below, then it is dropped).
ALTER TABLE "posts" RENAME TO "posts_unpartitioned";--> statement-breakpoint
ALTER TABLE "posts_unpartitioned" DROP CONSTRAINT "posts_author_id_profiles_id_fk";--> statement-breakpoint
ALTER TABLE "posts_unpartitioned" DROP CONSTRAINT "posts_pkey";--> statement-breakpoint
DROP INDEX "posts_platform_external_idx", "posts_posted_authors_idx", "posts_author_posted_idx",
  "posts_search_sample_idx", "posts_hashtags_idx", "posts_mentions_idx", "posts_text_grams_idx",
  "posts_platform_language_posted_idx", "posts_engagement_idx";--> statement-breakpoint
ALTER SEQUENCE "posts_id_seq" RENAME TO "posts_unpartitioned_id_seq";--> statement-breakpoint

-- 3. The partitioned table, its indexes (each partition gets its own) and the external keys.
CREATE TABLE "posts" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "posts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1) NOT NULL,
	"platform" "platform" NOT NULL,
	"external_id" text NOT NULL,
	"author_id" bigint NOT NULL,
	"text" text NOT NULL,
	"language" text,
	"posted_at" timestamp with time zone NOT NULL,
	"kind" "post_kind" DEFAULT 'original' NOT NULL,
	"media" "media_type" DEFAULT 'text' NOT NULL,
	"likes" integer DEFAULT 0 NOT NULL,
	"comments" integer DEFAULT 0 NOT NULL,
	"shares" integer DEFAULT 0 NOT NULL,
	"views" bigint,
	"url" text,
	"hashtags" text[] DEFAULT '{}'::text[] NOT NULL,
	"mentions" text[] DEFAULT '{}'::text[] NOT NULL,
	"domains" text[] DEFAULT '{}'::text[] NOT NULL,
	"sentiment" real DEFAULT 0 NOT NULL,
	"sentiment_label" "sentiment_label" DEFAULT 'neutral' NOT NULL,
	"engagement" integer GENERATED ALWAYS AS (likes + comments + shares) STORED NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text)) STORED NOT NULL,
	CONSTRAINT "posts_pkey" PRIMARY KEY("id","posted_at")
) PARTITION BY RANGE ("posted_at");--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_author_id_profiles_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."profiles"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "posts_posted_authors_idx" ON "posts" USING btree ("posted_at","author_id","engagement","platform","language");--> statement-breakpoint
CREATE INDEX "posts_author_posted_idx" ON "posts" USING btree ("author_id","posted_at");--> statement-breakpoint
CREATE INDEX "posts_search_sample_idx" ON "posts" USING gin ("search",post_sample_marks(id));--> statement-breakpoint
CREATE INDEX "posts_hashtags_idx" ON "posts" USING gin ("hashtags");--> statement-breakpoint
CREATE INDEX "posts_mentions_idx" ON "posts" USING gin ("mentions");--> statement-breakpoint
CREATE INDEX "posts_text_grams_idx" ON "posts" USING gin (post_text_grams("text"));--> statement-breakpoint
CREATE INDEX "posts_platform_language_posted_idx" ON "posts" USING btree ("platform","language","posted_at");--> statement-breakpoint
CREATE INDEX "posts_engagement_idx" ON "posts" USING btree ("engagement","id");--> statement-breakpoint
CREATE TABLE "post_keys" (
	"platform" "platform" NOT NULL,
	"external_id" text NOT NULL,
	"id" bigint NOT NULL,
	"posted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "post_keys_pkey" PRIMARY KEY("platform","external_id")
);--> statement-breakpoint
CREATE INDEX "post_keys_posted_idx" ON "post_keys" USING btree ("posted_at");--> statement-breakpoint

-- 4. Partitions: one per UTC month, named posts_YYYY_MM.
CREATE FUNCTION "posts_partition_ensure"(instant timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  month timestamptz := date_trunc('month', instant, 'UTC');
  name text := 'posts_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
  IF to_regclass(format('public.%I', name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE public.%I PARTITION OF posts FOR VALUES FROM (%L) TO (%L)', name, month,
    date_add(month, interval '1 month', 'UTC'));
  RETURN true;
END $$;--> statement-breakpoint

-- The partitions of posts and their months, oldest first.
CREATE FUNCTION "posts_partitions"() RETURNS TABLE (name text, since timestamptz, until timestamptz)
  LANGUAGE sql STABLE AS $$
  SELECT c.relname::text, m.since, date_add(m.since, interval '1 month', 'UTC')
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  CROSS JOIN LATERAL (SELECT (to_date(substr(c.relname, 7), 'YYYY_MM')::timestamp AT TIME ZONE 'UTC') AS since) m
  WHERE i.inhparent = 'public.posts'::regclass AND c.relname ~ '^posts_[0-9]{4}_[0-9]{2}$'
  ORDER BY m.since
$$;--> statement-breakpoint

-- The rows of the data in place: partitions for its months and the coming ones, then the rows with their ids.
SELECT posts_partition_ensure(m) FROM (SELECT DISTINCT date_trunc('month', posted_at, 'UTC') AS m
  FROM posts_unpartitioned) x;--> statement-breakpoint
SELECT posts_partition_ensure(date_add(now(), make_interval(months => n), 'UTC')) FROM generate_series(0, 2) n;--> statement-breakpoint
INSERT INTO "posts" ("id", "platform", "external_id", "author_id", "text", "language", "posted_at", "kind", "media",
  "likes", "comments", "shares", "views", "url", "hashtags", "mentions", "domains", "sentiment", "sentiment_label")
  OVERRIDING SYSTEM VALUE
  SELECT "id", "platform", "external_id", "author_id", "text", "language", "posted_at", "kind", "media", "likes",
    "comments", "shares", "views", "url", "hashtags", "mentions", "domains", "sentiment", "sentiment_label"
  FROM "posts_unpartitioned";--> statement-breakpoint
INSERT INTO "post_keys" ("platform", "external_id", "id", "posted_at")
  SELECT "platform", "external_id", "id", "posted_at" FROM "posts_unpartitioned";--> statement-breakpoint
SELECT setval('posts_id_seq', s.last_value, s.is_called) FROM "posts_unpartitioned_id_seq" s;--> statement-breakpoint
DROP TABLE "posts_unpartitioned";--> statement-breakpoint

-- 5. The change path.
-- Opens this transaction's change tables (dropped at its commit) after taking the corpus lock: writers of the corpus
-- take turns, so the rollups' read-modify-write never races. corpus_added has the posts' columns with their defaults,
-- the engagement computed as in posts, and ids from the posts' own sequence; the search vector is left to posts.
CREATE FUNCTION "corpus_changes_begin"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
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

-- Raised by every change of posts or profiles, in the writer's transaction: the row lock is held until it commits,
-- so versions rise in commit order and a reader sees the version and the posts change together (migration 0013).
CREATE FUNCTION "corpus_touch"() RETURNS void LANGUAGE sql AS $$
  UPDATE corpus_state SET version = version + 1, changed_at = now();
$$;--> statement-breakpoint

-- Applies corpus_removed and corpus_added (see the top of this file); write_posts false when the added rows are in
-- posts already (rows a caller inserted itself, adopted by their ids). Returns how many rows each table held.
-- Room to sort the elements of the authors touched in memory (a batch of 50 000 posts touches some 700 000).
CREATE FUNCTION "corpus_changes_apply"(write_posts boolean DEFAULT true) RETURNS TABLE (added bigint, removed bigint)
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
  TRUNCATE corpus_added, corpus_removed;
  RETURN QUERY SELECT n_added, n_removed;
END $$;--> statement-breakpoint

-- Profiles whose followers changed (ids with the counts before and after): the engagement rates of their posts in
-- post_days and the followers of their per-author rows follow (as the triggers of 0007 and 0010 did).
CREATE FUNCTION "corpus_followers_changed"(ids bigint[], before integer[], after integer[]) RETURNS void
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
END $$;--> statement-breakpoint

-- Hand-written changes through the change path. The rows a condition selects are taken as they are, the assignments
-- are applied to a copy (UPDATE … SET with the posts' column names), and the copy replaces them.
CREATE FUNCTION "corpus_update_posts"(condition text, assignments text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  EXECUTE format($q$INSERT INTO corpus_removed SELECT id, platform, external_id, author_id, language, posted_at, kind,
      media, likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label, engagement
    FROM posts WHERE %s$q$, condition);
  INSERT INTO corpus_added (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes,
    comments, shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label)
  SELECT p.id, p.platform, p.external_id, p.author_id, p.text, p.language, p.posted_at, p.kind, p.media, p.likes,
    p.comments, p.shares, p.views, p.url, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label
  FROM posts p JOIN corpus_removed o ON p.id = o.id AND p.posted_at = o.posted_at;
  EXECUTE format('UPDATE corpus_added SET %s', assignments);
  RETURN (SELECT a.removed FROM corpus_changes_apply() a);
END $$;--> statement-breakpoint

CREATE FUNCTION "corpus_delete_posts"(condition text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  EXECUTE format($q$INSERT INTO corpus_removed SELECT id, platform, external_id, author_id, language, posted_at, kind,
      media, likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label, engagement
    FROM posts WHERE %s$q$, condition);
  RETURN (SELECT a.removed FROM corpus_changes_apply() a);
END $$;--> statement-breakpoint

CREATE FUNCTION "corpus_update_profiles"(condition text, assignments text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
  before integer[];
  after integer[];
BEGIN
  PERFORM corpus_changes_begin();
  EXECUTE format($q$WITH u AS (UPDATE profiles SET %s WHERE %s RETURNING id, old.followers AS o, new.followers AS n)
    SELECT array_agg(id), array_agg(o), array_agg(n) FROM u$q$, assignments, condition) INTO ids, before, after;
  PERFORM corpus_followers_changed(coalesce(ids, '{}'), coalesce(before, '{}'), coalesce(after, '{}'));
  RETURN coalesce(cardinality(ids), 0);
END $$;--> statement-breakpoint

-- A profile goes with its posts (which a plain DELETE of the profile refuses: the foreign key restricts).
CREATE FUNCTION "corpus_delete_profiles"(condition text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  PERFORM corpus_changes_begin();
  -- The condition is read once: it may name the posts it is about to take away.
  EXECUTE format('SELECT coalesce(array_agg(id), ''{}'') FROM profiles WHERE %s', condition) INTO ids;
  PERFORM corpus_delete_posts(format('author_id = ANY (%L::bigint[])', ids));
  DELETE FROM profiles WHERE id = ANY (ids);
  PERFORM corpus_touch();
  RETURN cardinality(ids);
END $$;--> statement-breakpoint

-- Empties the corpus: posts (every partition stays, empty), their keys, profiles, the rollups and per-author rows,
-- and (CASCADE) any table with a foreign key to posts or profiles.
CREATE FUNCTION "corpus_truncate"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  TRUNCATE posts, post_keys, profiles, post_hours, post_days, post_tag_days, author_post_times RESTART IDENTITY
    CASCADE;
  PERFORM corpus_touch();
END $$;--> statement-breakpoint

-- Retention: the months wholly before `cutoff` go, partition by partition: the per-author rows lose their posts, the
-- rollups and keys of those months are deleted (both are keyed by UTC hour or day, within the month), and the
-- partition is detached and dropped. Returns the partitions dropped.
CREATE FUNCTION "posts_partitions_drop_before"(cutoff timestamptz) RETURNS SETOF text
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
    EXECUTE format('ALTER TABLE posts DETACH PARTITION public.%I', part.name);
    EXECUTE format('DROP TABLE public.%I', part.name);
    PERFORM corpus_touch();
    RETURN NEXT part.name;
  END LOOP;
END $$;
