-- Near-duplicates (issue 53, item 6): a post's text key, the MD5 (as a uuid) of its text lower-cased (Unicode simple
-- case mapping: the builtin pg_c_utf8 collation, the same on every platform) without links (http://, https://,
-- www.), without @mentions, and without punctuation ('#' of hashtags included, the tag's word kept) and whitespace;
-- null when nothing is left (a post of links or mentions alone has no text to share). Reposts and copies of a text
-- share it. A generated column: PostgreSQL computes it on every write of a post, whichever path writes it, and this
-- migration computes it for the posts already there. A workspace's correction of a post counts for every post of the
-- corpus with the same key, in that workspace only (server/social/corrections.ts).
-- One expression (no FROM, not STRICT), so PostgreSQL inlines it where it is used: about 8 µs a post.
CREATE FUNCTION post_text_key(body text) RETURNS uuid
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT md5(nullif(regexp_replace(
      regexp_replace(lower(body COLLATE pg_c_utf8), '(https?://|www\.)[^[:space:]]*|@[[:alnum:]_.]+', ' ', 'g'),
      '[[:punct:][:space:]]+', '', 'g'), ''))::uuid
  $$;
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "text_key" uuid GENERATED ALWAYS AS (post_text_key("text")) STORED;
--> statement-breakpoint
CREATE INDEX "posts_text_key_idx" ON "posts" USING btree ("text_key");
--> statement-breakpoint
-- The corrected post's key, kept with the correction (set when it is made): the posts that inherit it are found by
-- key without reading the corrected post again.
ALTER TABLE "sentiment_corrections" ADD COLUMN "text_key" uuid;
--> statement-breakpoint
UPDATE "sentiment_corrections" c SET "text_key" = p."text_key"
  FROM "post_keys" k JOIN "posts" p ON p."id" = k."id" AND p."posted_at" = k."posted_at"
  WHERE k."id" = c."post_id";
--> statement-breakpoint
CREATE INDEX "sentiment_corrections_text_key_idx" ON "sentiment_corrections" USING btree ("workspace_id", "text_key");
--> statement-breakpoint
-- Opens this transaction's change tables (dropped at its commit) after taking the corpus lock: writers of the corpus
-- take turns. corpus_added has the posts' columns with their defaults and ids from the posts' own sequence, but the
-- text key, which posts computes when the rows reach it (computing it in corpus_added too would cost every post it
-- twice).
CREATE OR REPLACE FUNCTION "corpus_changes_begin"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
  PERFORM set_config('murmur.corpus_writer', 'on', true);
  IF to_regclass('pg_temp.corpus_added') IS NULL THEN
    CREATE TEMP TABLE corpus_added (LIKE public.posts INCLUDING DEFAULTS INCLUDING GENERATED) ON COMMIT DROP;
    ALTER TABLE corpus_added DROP COLUMN text_key;
    ALTER TABLE corpus_added ALTER COLUMN id SET DEFAULT nextval('public.posts_id_seq');
    CREATE TEMP TABLE corpus_removed ON COMMIT DROP AS
      SELECT id, platform, external_id, author_id, language, posted_at, kind, media, likes, comments, shares, views,
        hashtags, mentions, domains, sentiment, sentiment_label, engagement
      FROM public.posts WITH NO DATA;
  END IF;
END $$;
