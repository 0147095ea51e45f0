-- Near-duplicates (issue 53, item 6): a post's text key, the MD5 (as a uuid) of its text lower-cased (Unicode simple
-- case mapping: the builtin pg_c_utf8 collation, the same on every platform) without links (http://, https://,
-- www.), without @mentions, and without punctuation ('#' of hashtags included, the tag's word kept) and whitespace;
-- null when nothing is left (a post of links or mentions alone has no text to share). Reposts and copies of a text
-- share it. A generated column: PostgreSQL computes it on every write of a post, whichever path writes it, and this
-- migration computes it for the posts already there. A workspace's correction of a post counts for every post of the
-- corpus with the same key, in that workspace only (server/social/corrections.ts).
CREATE FUNCTION post_text_key(body text) RETURNS uuid
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT CASE WHEN normalised = '' THEN NULL ELSE md5(normalised)::uuid END
    FROM (SELECT regexp_replace(
        regexp_replace(
          regexp_replace(lower(body COLLATE pg_c_utf8), '(https?://|www\.)[^[:space:]]*', ' ', 'g'),
          '@[[:alnum:]_.]+', ' ', 'g'),
        '[[:punct:][:space:]]+', '', 'g') AS normalised) n
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
