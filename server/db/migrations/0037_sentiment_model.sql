-- Issue 53 item 5: each post records the version of the scorer that gave it its sentiment (sentiment_model), and a
-- new model rescans the corpus in the background (server/social/corpus/rescan.ts). The posts stored before this
-- migration were scored by the word list or by the trained model, which nothing recorded: they are 'unknown', which
-- is never a model's version, so the first start with a model rescans them. A constant default costs no rewrite.
ALTER TABLE "posts" ADD COLUMN "sentiment_model" text DEFAULT 'unknown' NOT NULL;--> statement-breakpoint

-- The rescan of the corpus to one model version, one row per version: `cursor` is the id up to which every post was
-- rescored (posts are taken in id order), moved in the same transaction as the batch's posts, so a rescan killed at
-- any point resumes from the last committed batch. `total` is how many posts needed it when the rescan began (for
-- its progress), `done` how many it has rescored since; `finished_at` is set when no post of another version is left.
-- A post written below the cursor by a writer of another version meanwhile (an older server still running) is found
-- when the pass ends: the next pass starts again from 0 for what is left.
CREATE TABLE "sentiment_rescans" (
	"model" text PRIMARY KEY NOT NULL,
	"pass" integer DEFAULT 1 NOT NULL,
	"cursor" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"done" bigint DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint

-- One row per committed batch of a rescan's pass: the ids it covered (after_id < id <= last_id) and how many posts it
-- rescored, of which how many changed label or score. Written in the batch's own transaction: the log of what was
-- done, exactly once each.
CREATE TABLE "sentiment_rescan_batches" (
	"model" text NOT NULL,
	"pass" integer NOT NULL,
	"after_id" bigint NOT NULL,
	"last_id" bigint NOT NULL,
	"rescored" integer NOT NULL,
	"changed" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sentiment_rescan_batches_model_pass_after_id_pk" PRIMARY KEY("model","pass","after_id")
);
--> statement-breakpoint
ALTER TABLE "sentiment_rescan_batches" ADD CONSTRAINT "sentiment_rescan_batches_model_sentiment_rescans_model_fk" FOREIGN KEY ("model") REFERENCES "public"."sentiment_rescans"("model") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint

-- The posts a batch removed, added or changed: the posts themselves (with the version of their sentiment), their keys,
-- the corpus version and the outbox.
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
      shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model) OVERRIDING SYSTEM VALUE
    SELECT id, platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments, shares,
      views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model FROM corpus_added;
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
-- of their sentiment, which an assignment may set), the assignments are applied to a copy (UPDATE … SET with the
-- posts' column names), and the copy replaces them.
CREATE OR REPLACE FUNCTION "corpus_update_posts"(condition text, assignments text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  EXECUTE format($q$INSERT INTO corpus_removed SELECT id, platform, external_id, author_id, language, posted_at, kind,
      media, likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label, engagement
    FROM posts WHERE %s$q$, condition);
  INSERT INTO corpus_added (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes,
    comments, shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model)
  SELECT p.id, p.platform, p.external_id, p.author_id, p.text, p.language, p.posted_at, p.kind, p.media, p.likes,
    p.comments, p.shares, p.views, p.url, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label,
    p.sentiment_model
  FROM posts p JOIN corpus_removed o ON p.id = o.id AND p.posted_at = o.posted_at;
  EXECUTE format('UPDATE corpus_added SET %s', assignments);
  RETURN (SELECT a.removed FROM corpus_changes_apply() a);
END $$;
