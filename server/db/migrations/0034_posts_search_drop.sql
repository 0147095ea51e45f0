-- The analytics store splits a post's text into words itself (layout 11: server/analytics/layout.ts), and the query
-- side splits a query's terms in TypeScript (server/analytics/query/words.ts): nothing reads the posts' search vector,
-- its index or the grams and sample-mark functions any more, and every write computed the vector (to_tsvector) and
-- indexed it. The change path's corpus_added no longer drops the column it no longer inherits (first: a plpgsql body
-- naming it would only fail at its next call), then the index, the column and the functions go.

-- Opens this transaction's change tables (dropped at its commit) after taking the corpus lock: writers of the corpus
-- take turns. corpus_added has the posts' columns with their defaults and ids from the posts' own sequence.
CREATE OR REPLACE FUNCTION "corpus_changes_begin"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('murmur:corpus'));
  PERFORM set_config('murmur.corpus_writer', 'on', true);
  IF to_regclass('pg_temp.corpus_added') IS NULL THEN
    CREATE TEMP TABLE corpus_added (LIKE public.posts INCLUDING DEFAULTS INCLUDING GENERATED) ON COMMIT DROP;
    ALTER TABLE corpus_added ALTER COLUMN id SET DEFAULT nextval('public.posts_id_seq');
    CREATE TEMP TABLE corpus_removed ON COMMIT DROP AS
      SELECT id, platform, external_id, author_id, language, posted_at, kind, media, likes, comments, shares, views,
        hashtags, mentions, domains, sentiment, sentiment_label, engagement
      FROM public.posts WITH NO DATA;
  END IF;
END $$;--> statement-breakpoint
DROP INDEX "posts_search_idx";--> statement-breakpoint
ALTER TABLE "posts" DROP COLUMN "search";--> statement-breakpoint
DROP FUNCTION "post_text_query_grams"(text);--> statement-breakpoint
DROP FUNCTION "post_text_grams"(text);--> statement-breakpoint
DROP FUNCTION "post_sample_marks"(bigint);
