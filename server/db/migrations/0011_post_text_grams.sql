-- Substring terms (server/social/query/terms.ts: Chinese, Japanese, Korean, Thai, emoji) through grams instead of
-- trigrams. The trigram index could not serve a term of fewer than 3 characters ('%노바%' read every post: 2.3 s at
-- 1M posts, where most words of these scripts are 1 or 2 characters), and it held every trigram of every post
-- (196 MB at 1M posts) to serve only these terms.
--
-- post_text_grams(text): in the lower-cased text, every character of those scripts (and of the symbol and emoji
-- blocks), and every pair of neighbouring characters one of which is such a character. A text containing a term
-- has every gram of the term, so post_text_grams(text) @> post_text_query_grams(term) keeps every match; ILIKE then
-- keeps exactly the matches. Both sides are computed by the same function, so which characters count only decides
-- what the index can find, never what matches. The pairs come from two passes of '..' (at even and at odd offsets).
CREATE FUNCTION "post_text_grams"(t text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN CASE WHEN t ~ '[ก-๿ᄀ-ᇿ\u2000-\u2bff\u3000-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe00-\ufe0f\uff65-\uff9f\U0001f000-\U0001faff\U00020000-\U0002ffff]'
    THEN ARRAY(
      SELECT DISTINCT g FROM (
        SELECT regexp_split_to_table(lower(t), '')
        UNION ALL SELECT (regexp_matches(lower(t), '..', 'g'))[1]
        UNION ALL SELECT (regexp_matches(substr(lower(t), 2), '..', 'g'))[1]) x (g)
      WHERE g ~ '[ก-๿ᄀ-ᇿ\u2000-\u2bff\u3000-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe00-\ufe0f\uff65-\uff9f\U0001f000-\U0001faff\U00020000-\U0002ffff]')
    ELSE '{}' END;--> statement-breakpoint
-- The grams of a term that its matches must have and that narrow them most: its pairs, or its one character.
CREATE FUNCTION "post_text_query_grams"(term text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN ARRAY(SELECT g FROM unnest(post_text_grams(term)) g WHERE char_length(g) = least(char_length(lower(term)), 2));--> statement-breakpoint
DROP INDEX "posts_text_trgm_idx";--> statement-breakpoint
CREATE INDEX "posts_text_grams_idx" ON "posts" USING gin (post_text_grams("text"));
